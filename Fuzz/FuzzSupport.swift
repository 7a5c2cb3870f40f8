import DumpFormats
// Shared by every harness: the limits an input is read with, and reading a dump to its end.
// Every reader takes its input from memory, as the file it would be (a name picks the format),
// through `ReadBuffers.small`: nothing is written to disk, no megabyte buffer is allocated and
// no read-ahead thread is started per input.
import IAPBasics

/// Standard limits for most inputs, small ones when the input's last byte is odd:
/// the fuzzer can flip between them.
func limits(for data: UnsafePointer<UInt8>, _ size: Int) -> Limits {
    size > 0 && data[size - 1] & 1 == 1 ? .small : fuzzStandard
}

/// `Limits.standard`, but with the decompression caps sized for fuzz inputs. The real ones
/// (64 GiB; a 1000:1 ratio judged only past 16 MiB) let a 16 KiB gzip or zip bomb inflate to
/// 16 MiB, a second or more of parsing per run; and since a longer inflate reaches new loop
/// counts, the fuzzer fills its corpus with such bombs (gzip ran at 30 runs/s). Here nothing
/// inflates past 64 KiB, as much as the largest plain input of any harness, and the ratio is
/// judged past 16 KiB, so both caps are still reached. The real caps are tested on real
/// bombs in `Tests/HostileInputTests/BuiltCasesTests.swift`.
let fuzzStandard: Limits = {
    var l = Limits.standard
    l.maxDecompressedBytes = 64 << 10
    l.ratioGraceBytes = 16 << 10
    return l
}()

/// The input's bytes.
func inputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

// MARK: dumps

/// Reads `bytes` as the dump file `name` to the end with DumpReader, alternating orders
/// and receipts-rows; a reader that keeps returning items long after the input ran out is
/// stuck, and trapping shows it. Then reads it as a sharded run's workers (`readSharded`).
func readDump(_ bytes: [UInt8], name: String, limits: Limits) {
    guard let reader = try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small) else { return }
    var items = 0
    do {
        while true {
            let more: Bool
            if items % 2 == 0 { more = try reader.nextOrder() != nil } else { more = try reader.nextReceipt() != nil }
            guard more else { break }
            items += 1
            if items > 2 * bytes.count + 16 && reader.compression == .none {
                fatalError("\(items) items from \(bytes.count) bytes: the reader does not advance")
            }
            if items > 10_000_000 { fatalError("more than 10^7 items: the reader does not advance") }
        }
    } catch {
        _ = error.description
    }
    readSharded(bytes, name: name, limits: limits)
    if name.hasSuffix(".xml") { readStrictRowsAgainstLibxml2(bytes, name: name, limits: limits) }
}

/// Reads an XML dump twice, its strict rows read without libxml2 and every row through it,
/// and traps unless both give the same items and end alike (the same error, or none).
private func readStrictRowsAgainstLibxml2(_ bytes: [UInt8], name: String, limits: Limits) {
    let fast = try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small)
    let plain = try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small, xmlStrictRows: false)
    guard let fast, let plain else {
        if fast != nil || plain != nil { fatalError("one XML reader opened what the other did not") }
        return
    }
    for _ in 0..<10_000_000 {
        let a: Result<DumpItem?, InputError>
        let b: Result<DumpItem?, InputError>
        do { a = .success(try fast.next()) } catch { a = .failure(error) }
        do { b = .success(try plain.next()) } catch { b = .failure(error) }
        switch (a, b) {
        case (.success(let x), .success(let y)):
            guard x == y else { fatalError("a strict XML row read without libxml2 differs: \(String(describing: x))") }
            if x == nil { return }
        case (.failure(let x), .failure(let y)):
            // At one place: libxml2's words for an error there depend on how its input was cut.
            func place(_ e: InputError) -> Substring { e.reason.prefix { $0 != ":" } }
            guard x.code == y.code, place(x) == place(y) else {
                fatalError("the XML readers fail differently: \(x.reason) / \(y.reason)")
            }
            return
        default:
            fatalError("one XML reader failed where the other read on")
        }
    }
}

/// Reads `bytes` again as the three workers of `--shard I/3`, in step with an unsharded
/// reader, and traps unless every record is kept by exactly one worker, as the unsharded
/// reader read it: what a worker leaves unread (another shard's id, found alone) must be
/// what another keeps. Three, not two: fnv1a64 mod 2 sees only the low bit of each byte.
private func readSharded(_ bytes: [UInt8], name: String, limits: Limits) {
    guard let whole = try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small) else { return }
    let shards = (1...3).compactMap { ShardSpec(index: $0, count: 3) }
    let readers = shards.compactMap { _ in try? DumpReader(bytes: bytes, name: name, limits: limits, buffers: .small) }
    guard readers.count == shards.count else { fatalError("a shard's reader did not open what the unsharded one did") }
    var k = 0
    while k < 10_000_000 {
        defer { k += 1 }
        if k % 2 == 0 {
            guard
                compareStep(
                    try? whole.nextOrder(), shards.indices.map { try? readers[$0].nextOrder(in: shards[$0]) },
                    shards, orderID: \.orderID)
            else { return }
        } else {
            guard
                compareStep(
                    try? whole.nextReceipt(), shards.indices.map { try? readers[$0].nextReceipt(in: shards[$0]) },
                    shards, orderID: \.orderID)
            else { return }
        }
    }
}

/// One record each way; false at the end (or the error) that all readers reach together.
private func compareStep<Row: Equatable>(
    _ whole: Result<Row, UnreadableRecord>?, _ parts: [ShardRead<Row>?],
    _ shards: [ShardSpec], orderID: KeyPath<Row, String>
) -> Bool {
    // The end of the input (or an error ending it) comes for every reader at once.
    guard let item = whole else {
        if parts.contains(where: { $0 != nil }) {
            fatalError("a shard's reader read on past the unsharded reader's end")
        }
        return false
    }
    var keepers = 0
    for (i, part) in parts.enumerated() {
        guard let read = part else { fatalError("a shard's reader ended before the unsharded reader") }
        switch (read, item) {
        case (.elsewhere, _):
            continue
        case (.row(let row), .success(let expected)):
            guard row == expected else { fatalError("a shard's reader read another row than the unsharded reader") }
            if shards[i].owns(row[keyPath: orderID]) { keepers += 1 }
        case (.malformed(let m, let ownID), .failure(let expected)):
            guard m == expected else { fatalError("a shard's reader gave another reason than the unsharded reader") }
            if ownID || shards[i].index == 1 { keepers += 1 }
        default:
            fatalError("a shard's reader read a record as the unsharded reader did not")
        }
    }
    guard keepers == 1 else { fatalError("a record kept by \(keepers) shards of \(shards.count)") }
    return true
}
