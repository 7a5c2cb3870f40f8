import Decompression
import DumpFormats
import Foundation
import IAPBasics
import JSONText
import StoreCrypto

/// The explain index `screen` left in its `--out`, opened for `explain`: checked against the
/// night explain was given (`ExplainIndexStamp`, the ledger's last run), then asked for one
/// order with a few reads (`ExplainIndexFormat`). The file is input like any other: every
/// length and offset is checked against the file, every entry read against its check, and
/// anything wrong is a refusal in words, never a crash.
package final class ExplainIndex {
    /// Why the index does not answer, in words that finish "not using the index in DIR: …".
    package struct Refusal: Error, CustomStringConvertible {
        package var description: String
    }

    /// One dump as the index knows it.
    struct Dump {
        var path: String
        /// Where its second item starts (negative: not known); nil: it has fewer than two.
        var secondItemStart: Int64?
        var members: [GzipCheckpoints.Point]
    }

    private struct Section {
        var offset: Int64
        var count: Int
    }

    private let file: IndexFile
    let dumps: [Dump]
    private let orders: Section
    private let receipts: Section
    private let facts: Section
    private let eventKeys: Section
    private let events: Section
    /// How many store events the night read (nil: it was screened without `--store-events`).
    package let storeEventsRead: Int?
    /// Whether the night's refunds were judged (`user.refunds` is then 0 where the index says nothing).
    package let refundsJudged: Bool

    /// The index in `directory`, if it answers for a night of `stamp` on a ledger whose last
    /// run is `ledger` (nil: no ledger; .some(nil) inside: a ledger of no runs; nil outside:
    /// the ledger's runs could not be read).
    package static func open(directory: String, expecting stamp: ExplainIndexStamp, ledger: LedgerRunStamp??)
        -> Result<ExplainIndex, Refusal>
    {
        let path = (directory as NSString).appendingPathComponent(ExplainIndexFormat.fileName)
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(Refusal(description: "there is none (screen writes \(ExplainIndexFormat.fileName) there)"))
        }
        do {
            let index = try ExplainIndex(path: path)
            if let why = stamp.difference(from: index.stamp) { return .failure(Refusal(description: why)) }
            if let why = LedgerRunStamp.difference(now: ledger, written: index.ledgerRun) {
                return .failure(Refusal(description: why))
            }
            return .success(index)
        } catch {
            return .failure(error)
        }
    }

    /// The index file at `path` with every check of `open` but the comparison with a night:
    /// its stamp and ledger run are read, not compared. For the fuzz harness
    /// (`Fuzz/FuzzExplainindex.swift`), which has no night to stamp; `explain` uses `open`.
    package static func openIgnoringStamp(path: String) -> Result<ExplainIndex, Refusal> {
        do {
            return .success(try ExplainIndex(path: path))
        } catch {
            return .failure(error)
        }
    }

    private let stamp: ExplainIndexStamp
    private let ledgerRun: LedgerRunStamp?

    private init(path: String) throws(Refusal) {
        file = try IndexFile(path: path)
        guard try file.read(0, 8) == ExplainIndexFormat.magic else {
            throw Refusal(description: "\(path) is not an explain index of this version")
        }
        // The end: ledger JSON | m u32 | "IAPSXEND".
        let end = try file.read(file.size - 12, 12)
        guard Array(end[4...]) == ExplainIndexFormat.endMagic else { throw damaged("its end is missing") }
        let ledgerLength = Int64(end.withUnsafeBytes { LittleEndian.uint32($0, 0) })
        guard ledgerLength <= ExplainIndexFormat.maxTrailerBytes else { throw damaged("its end is too long") }
        let ledgerAt = file.size - 12 - ledgerLength
        let ledger = try Self.object(try file.read(ledgerAt, Int(ledgerLength)), "its ledger run")
        ledgerRun = try Self.ledgerRun(ledger)
        // Before it: header | n u32 | SHA-256.
        let footer = try file.read(ledgerAt - 36, 36)
        let headerLength = Int64(footer.withUnsafeBytes { LittleEndian.uint32($0, 0) })
        guard headerLength <= ExplainIndexFormat.maxHeaderBytes else { throw damaged("its header is too long") }
        let headerAt = ledgerAt - 36 - headerLength
        let headerBytes = try file.read(headerAt, Int(headerLength))
        guard let digest = try? Digest.sha256(headerBytes), digest == Array(footer[4...]) else {
            throw damaged("its header's digest does not match")
        }
        let header = try Self.object(headerBytes, "its header")
        guard let stampObject = header["stamp"]?.object, let stamp = ExplainIndexStamp(json: stampObject) else {
            throw damaged("its header has no stamp")
        }
        self.stamp = stamp
        dumps = try Self.dumps(header["dumps"], expected: stamp.orders.map(\.path) + stamp.receipts.map(\.path))
        func section(_ name: String, entrySize: Int) throws(Refusal) -> Section {
            guard let a = header["sections"]?.object?[name]?.array, a.count == 2, let offset = a[0].int64,
                let count = a[1].int64.flatMap({ Int(exactly: $0) }), offset >= 8, count >= 0
            else { throw damaged("its header has no \(name) section") }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: entrySize)
            guard !overflow, offset <= headerAt, Int64(bytes) <= headerAt - offset else {
                throw damaged("its \(name) section lies outside the file")
            }
            return Section(offset: offset, count: count)
        }
        orders = try section("orders", entrySize: OrderEntry.size)
        receipts = try section("receipts", entrySize: ReceiptEntry.size)
        facts = try section("facts", entrySize: 1)
        eventKeys = try section("event_keys", entrySize: EventKeyEntry.size)
        events = try section("events", entrySize: 1)
        let night = header["night"]?.object
        storeEventsRead = night?["store_events_read"]?.int64.flatMap { Int(exactly: $0) }
        refundsJudged = night?["refunds_judged"]?.bool ?? false
    }

    // MARK: Looking up

    /// The entries of `orderID`'s hash: usually one (an order), a few only when ids collide.
    package func orderEntries(_ orderID: String) throws(Refusal) -> [OrderEntry] {
        try entries(ShardSpec.fnv1a64(orderID), in: orders)
    }

    /// The receipts-dump rows an order of `orderID`'s hash took.
    package func receiptEntries(_ orderID: String) throws(Refusal) -> [ReceiptEntry] {
        try entries(ShardSpec.fnv1a64(orderID), in: receipts)
    }

    /// The facts an entry points at; nil when it points at none.
    package func facts(of entry: OrderEntry, orderID: String) throws(Refusal) -> OrderFacts? {
        guard entry.facts > 0 else { return nil }
        let object = try record(in: facts, at: entry.facts - 1, "an order's facts")
        guard let f = OrderFacts(json: object), f.orderID == orderID else {
            throw damaged("an order's facts are not order \(quotedValue(orderID))'s")
        }
        return f
    }

    /// The lines of the night's store events that `names` (an order's claim keys and tokens)
    /// name, in the order the logs held them.
    package func eventLines(naming names: Set<String>) throws(Refusal) -> [String] {
        var found: [UInt32: String] = [:]
        for name in names {
            let keys: [EventKeyEntry] = try entries(ShardSpec.fnv1a64(name), in: eventKeys)
            for k in keys where found[k.item] == nil {
                let object = try record(in: events, at: k.offset, "a store event")
                guard let line = object["line"]?.string, let said = object["names"]?.array else {
                    throw damaged("a store event's record is not one")
                }
                if said.contains(where: { $0.string == name }) { found[k.item] = line }
            }
        }
        return found.sorted { $0.key < $1.key }.map(\.value)
    }

    /// Entries of a sorted section whose hash is `hash`: a binary search, each entry read
    /// checked (the one where `hash` would stand included, so an order the index lacks is
    /// known to be absent, not lost to a damaged entry).
    private func entries<E: IndexEntry>(_ hash: UInt64, in section: Section) throws(Refusal) -> [E] {
        func entry(_ i: Int) throws(Refusal) -> E {
            let bytes = try file.read(section.offset + Int64(i) * Int64(E.size), E.size)
            guard let e = bytes.withUnsafeBytes({ E.read($0, index: i) }) else {
                throw damaged("entry \(i) of a section fails its check")
            }
            return e
        }
        var lo = 0
        var hi = section.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if try entry(mid).hash < hash { lo = mid + 1 } else { hi = mid }
        }
        var out: [E] = []
        var i = lo
        while i < section.count {
            let e = try entry(i)
            guard e.hash == hash else { break }
            guard out.count < ExplainIndexFormat.maxSameHash else {
                throw damaged("more than \(ExplainIndexFormat.maxSameHash) entries share one hash")
            }
            out.append(e)
            i += 1
        }
        return out
    }

    /// The JSON object of the record at `offset` of `section` (`length u32 | check u32 | JSON`).
    private func record(in section: Section, at offset: UInt64, _ what: String) throws(Refusal) -> JSONObject {
        guard let at = Int64(exactly: offset), at >= 0, at <= Int64(section.count) - 8 else {
            throw damaged("\(what) lies outside its section")
        }
        let head = try file.read(section.offset + at, 8)
        let (length, check) = head.withUnsafeBytes { (Int64(LittleEndian.uint32($0, 0)), LittleEndian.uint32($0, 4)) }
        guard length <= ExplainIndexFormat.maxRecordBytes, at + 8 + length <= Int64(section.count) else {
            throw damaged("\(what) lies outside its section")
        }
        let bytes = try file.read(section.offset + at + 8, Int(length))
        guard ExplainIndexFormat.check(bytes, seed: UInt64(at)) == check else {
            throw damaged("\(what) fails its check")
        }
        return try Self.object(bytes, what)
    }

    // MARK: Pieces

    private static func object(_ bytes: [UInt8], _ what: String) throws(Refusal) -> JSONObject {
        var limits = Limits.standard
        limits.maxPayloadBytes = ExplainIndexFormat.maxHeaderBytes
        limits.maxElements = GzipCheckpoints.maxPoints * 2 + 16
        guard let o = (try? JSONParser.parse(bytes, limits: limits))?.object else {
            throw damaged("\(what) is not the JSON it should be")
        }
        return o
    }

    private static func ledgerRun(_ o: JSONObject) throws(Refusal) -> LedgerRunStamp? {
        guard let v = o["ledger"] else { throw damaged("its ledger run is missing") }
        if v.isNull { return nil }
        guard let r = v.object, let run = r["run"]?.int64, let started = r["started_at"]?.string,
            let finished = r["finished_at"]?.string
        else { throw damaged("its ledger run is not one") }
        return LedgerRunStamp(run: run, startedAt: started, finishedAt: finished)
    }

    private static func dumps(_ v: JSONValue?, expected paths: [String]) throws(Refusal) -> [Dump] {
        guard let list = v?.array, list.count == paths.count else { throw damaged("its dumps are not the stamp's") }
        var out: [Dump] = []
        for (item, path) in zip(list, paths) {
            guard let o = item.object, o["path"]?.string == path, let members = o["members"]?.array,
                members.count <= GzipCheckpoints.maxPoints
            else { throw damaged("its dumps are not the stamp's") }
            var points: [GzipCheckpoints.Point] = []
            for m in members {
                guard let a = m.array, a.count == 2, let c = a[0].int64, let d = a[1].int64, c >= 0, d >= 0,
                    points.last.map({ $0.compressedOffset < c && $0.decompressedOffset <= d }) ?? (c == 0 && d == 0)
                else { throw damaged("the gzip members of \(path) are out of order") }
                points.append(.init(compressedOffset: c, decompressedOffset: d))
            }
            let second = o["second_item"]?.int64
            out.append(Dump(path: path, secondItemStart: second, members: points))
        }
        return out
    }
}

func damaged(_ why: String) -> ExplainIndex.Refusal {
    ExplainIndex.Refusal(description: "it is damaged (\(why))")
}

/// The index file, read with `pread` at the offsets asked (a few reads a lookup).
private final class IndexFile {
    let size: Int64
    private let fd: Int32
    private let path: String

    init(path: String) throws(ExplainIndex.Refusal) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ExplainIndex.Refusal(description: "\(path) cannot be opened: \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw ExplainIndex.Refusal(description: "\(path) is not a file")
        }
        size = Int64(st.st_size)
    }

    deinit { close(fd) }

    /// `count` bytes at `offset`, all of them inside the file.
    func read(_ offset: Int64, _ count: Int) throws(ExplainIndex.Refusal) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw damaged("it is shorter than it says (\(size) bytes)")
        }
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress.map { $0 + got }, count - got, off_t(offset) + off_t(got))
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw ExplainIndex.Refusal(description: "\(path) cannot be read: \(String(cString: strerror(errno)))")
            }
            got += n
        }
        return out
    }
}
