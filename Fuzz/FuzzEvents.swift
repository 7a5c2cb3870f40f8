// Store-event logs (`--store-events`, docs/store-events.md): StoreEventFile reads the bytes from
// memory, drained batch by batch, as `events` (no extension: the layout is sniffed from the
// first line, so JSON Lines, one pretty document and CSV/TSV/XML dumps with a payload column
// all run; gzip by its magic) and, when that made a dump, again as `events.jsonl` (JSON
// Lines whatever the first line is: each line a webhook body, a JWS, a history or
// refund-history page, a voided purchase or its page, an RTDN push or decoded notification,
// or a logged row with a payload column). When the first line already made lines or a
// document, `events.jsonl` would read the same again. Small limits on odd last bytes.
// Every event and problem must name the file and a line the input has; a reader that keeps
// handing out batches long after the input ran out is stuck.
import DumpFormats
import IAPBasics
import StoreEvents

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lim = limits(for: data, size)
    let bytes = inputBytes(data, size)
    // Lines the input has, counting a lone CR as one too (an upper bound for every reader).
    var lines = 1
    for b in bytes where b == 0x0A || b == 0x0D { lines += 1 }
    if case .dump? = readEvents(bytes, lines: lines, name: "events", limits: lim) {
        _ = readEvents(bytes, lines: lines, name: "events.jsonl", limits: lim)
    }
    return 0
}

/// Reads `bytes` as the file `name` to its end; the layout it was read in, nil when it
/// could not be opened.
func readEvents(_ bytes: [UInt8], lines: Int, name: String, limits: Limits) -> StoreEventFile.Layout? {
    guard let file = try? StoreEventFile(.bytes(bytes, name: name), limits: limits, buffers: .small) else { return nil }
    let gzipped = bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    var batches = 0
    var last = 0
    // A line (JSON Lines, a document, CSV/TSV) the input has, or an XML row it can hold.
    func check(_ location: SourceLocation, _ what: String) {
        let n: Int
        let most: Int
        switch location.position {
        case .line(let l): (n, most) = (l, lines)
        case .row(let r): (n, most) = (r, bytes.count)
        }
        guard location.file == name, n >= 1, gzipped || n <= most else {
            fatalError("\(what) at \(location) in a \(bytes.count)-byte input of \(lines) lines named \(name)")
        }
        // Batches come in file order; a page's events and problems share its line.
        guard n >= last else { fatalError("\(what) at \(location) after \(last)") }
    }
    func number(_ location: SourceLocation) -> Int {
        switch location.position {
        case .line(let n), .row(let n): return n
        }
    }
    do {
        while let parsed = try file.next() {
            var first = Int.max
            for e in parsed.events {
                check(e.location, "event \(e.type)")
                first = min(first, number(e.location))
            }
            for p in parsed.problems {
                check(p.location, "problem \"\(p.reason)\"")
                guard !p.reason.isEmpty else { fatalError("a problem at \(p.location) without a reason") }
                first = min(first, number(p.location))
            }
            if first != Int.max { last = first }
            batches += 1
            if batches > 2 * bytes.count + 16 && !gzipped {
                fatalError("\(batches) batches from \(bytes.count) bytes: the reader does not advance")
            }
            if batches > 10_000_000 { fatalError("more than 10^7 batches: the reader does not advance") }
        }
    } catch {
        _ = error.description
    }
    _ = file.rawBytesRead
    return file.layout
}
