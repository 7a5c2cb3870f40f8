import Foundation
import IAPBasics
import JSONText
import StoreCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// What an explain index was made from, beside the ledger: the binary that wrote it, the
/// Rules directory (a digest of its files), the `--environment` orders default to, and every
/// input file by its path as given, its size, its modification time and a digest of its head.
/// `explain` makes the same from its own flags; any difference, and the index is not used.
package struct ExplainIndexStamp: Equatable, Sendable {
    /// One input file as it lay on disk.
    package struct FileStamp: Equatable, Sendable {
        package var path: String
        package var size: Int64
        package var modifiedNanos: Int64
        /// SHA-256 of its first `headBytes`: a file rewritten within the same second and size differs there.
        package var headSHA256: String

        package static let headBytes = 64 << 10

        /// The file as it is now; nil when it cannot be read (the night reports that itself).
        package init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var head = [UInt8](repeating: 0, count: Self.headBytes)
            var got = 0
            while got < head.count {
                let n = head.withUnsafeMutableBytes {
                    pread(fd, $0.baseAddress.map { $0 + got }, $0.count - got, off_t(got))
                }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            guard let digest = try? Digest.sha256(Array(head[..<got])) else { return nil }
            self.path = path
            size = Int64(st.st_size)
            modifiedNanos = Int64(st.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_mtim.tv_nsec)
            headSHA256 = Digest.hex(digest)
        }

        init(path: String, size: Int64, modifiedNanos: Int64, headSHA256: String) {
            self.path = path
            self.size = size
            self.modifiedNanos = modifiedNanos
            self.headSHA256 = headSHA256
        }
    }

    package var version: String
    package var rulesSHA256: String
    /// Orders that name no environment are production (`--environment production`).
    package var production: Bool
    package var orders: [FileStamp]
    package var receipts: [FileStamp]
    package var storeEvents: [FileStamp]

    /// nil when an input cannot be read now (the night says which and why).
    package init?(
        version: String, rulesSHA256: String, production: Bool, orders: [String], receipts: [String],
        storeEvents: [String]
    ) {
        func stamps(_ paths: [String]) -> [FileStamp]? {
            let s = paths.compactMap(FileStamp.init(path:))
            return s.count == paths.count ? s : nil
        }
        guard let o = stamps(orders), let r = stamps(receipts), let e = stamps(storeEvents) else { return nil }
        self.init(
            version: version, rulesSHA256: rulesSHA256, production: production, orders: o, receipts: r, storeEvents: e)
    }

    init(
        version: String, rulesSHA256: String, production: Bool, orders: [FileStamp], receipts: [FileStamp],
        storeEvents: [FileStamp]
    ) {
        self.version = version
        self.rulesSHA256 = rulesSHA256
        self.production = production
        self.orders = orders
        self.receipts = receipts
        self.storeEvents = storeEvents
    }

    /// Why an index made from `written` does not answer for this night, in words; nil when it does.
    package func difference(from written: ExplainIndexStamp) -> String? {
        if written.version != version {
            return "it was written by iapscreen \(written.version), this is \(version)"
        }
        if written.rulesSHA256 != rulesSHA256 { return "the Rules directory is not the one screen read" }
        if written.production != production {
            return "screen read with --environment \(written.production ? "production" : "sandbox")"
        }
        for (what, now, then) in [
            ("--orders", orders, written.orders), ("--receipts", receipts, written.receipts),
            ("--store-events", storeEvents, written.storeEvents),
        ] {
            if let why = Self.difference(what, now, then) { return why }
        }
        return nil
    }

    private static func difference(_ flag: String, _ now: [FileStamp], _ then: [FileStamp]) -> String? {
        guard now.map(\.path) == then.map(\.path) else {
            let said = then.isEmpty ? "none" : then.map(\.path).joined(separator: " ")
            return "screen read other \(flag) (\(said))"
        }
        for (a, b) in zip(now, then) where a != b {
            let what =
                a.size != b.size
                ? "its size" : a.modifiedNanos != b.modifiedNanos ? "its modification time" : "its first 64 KiB"
            return "\(a.path) changed since screen read it (\(what))"
        }
        return nil
    }

    // MARK: JSON, as the index's header keeps it

    var json: JSONObject {
        func files(_ f: [FileStamp]) -> JSONValue {
            .array(
                f.map {
                    .array([
                        .string($0.path), JSONValue.integer($0.size), JSONValue.integer($0.modifiedNanos),
                        .string($0.headSHA256),
                    ])
                })
        }
        return JSONObject([
            ("version", .string(version)), ("rules_sha256", .string(rulesSHA256)), ("production", .bool(production)),
            ("orders", files(orders)), ("receipts", files(receipts)), ("store_events", files(storeEvents)),
        ])
    }

    init?(json o: JSONObject) {
        func files(_ key: String) -> [FileStamp]? {
            guard let list = o[key]?.array else { return nil }
            let read = list.compactMap { v -> FileStamp? in
                guard let a = v.array, a.count == 4, let path = a[0].string, let size = a[1].int64,
                    let modified = a[2].int64, let head = a[3].string
                else { return nil }
                return FileStamp(path: path, size: size, modifiedNanos: modified, headSHA256: head)
            }
            return read.count == list.count ? read : nil
        }
        guard let version = o["version"]?.string, let rules = o["rules_sha256"]?.string,
            let production = o["production"]?.bool, let orders = files("orders"), let receipts = files("receipts"),
            let events = files("store_events")
        else { return nil }
        self.init(
            version: version, rulesSHA256: rules, production: production, orders: orders, receipts: receipts,
            storeEvents: events)
    }
}

/// The ledger's last run as `explain` must find it: the run `screen` recorded with the index
/// (nil: screen ran without a ledger, and explain must have none either).
package struct LedgerRunStamp: Equatable, Sendable {
    package var run: Int64
    package var startedAt: String
    package var finishedAt: String

    package init(run: Int64, startedAt: String, finishedAt: String) {
        self.run = run
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    package var words: String { "run \(run) (\(startedAt) to \(finishedAt))" }

    /// Why an index written with the ledger at `written` does not answer with it at `now`; nil when it does.
    package static func difference(now: LedgerRunStamp??, written: LedgerRunStamp?) -> String? {
        guard let now else { return "the ledger's runs cannot be read" }
        if now == written { return nil }
        guard let written else {
            return "screen ran without a ledger, and the ledger's last run is \(now?.words ?? "none")"
        }
        guard let now else { return "screen recorded \(written.words) in its ledger, and explain has no ledger" }
        return now.run == written.run
            ? "the ledger is not the one screen recorded \(written.words) in"
            : "the ledger has had \(now.words) since screen recorded \(written.words)"
    }
}
