import IAPBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Splits `decode`'s input into payloads with their 1-based line numbers: one payload per
/// line (blank lines skipped), or — for a small input — a whole file that is one raw-DER
/// receipt, or one base64 payload wrapped over several lines (then `line` is 1).
struct PayloadSplitter {
    struct Payload {
        var line: Int
        var bytes: [UInt8]
    }

    /// Inputs up to this size are judged whole; larger ones are streamed line by line.
    static let wholeInputCap = 8 << 20

    let fd: Int32
    let limits: Limits

    /// Calls `body` for each payload in input order. Throws only when the input cannot be read.
    /// `acceptsWhole` confirms that a wrapped-base64 input really is one payload (several
    /// one-line payloads of equal length look alike).
    func forEach(acceptsWhole: ([UInt8]) -> Bool, _ body: (Payload) -> Void) throws(ReadError) {
        var head = [UInt8]()
        let complete = try read(into: &head, upTo: PayloadSplitter.wholeInputCap + 1)
        if complete {
            if head.first == 0x30 {
                body(Payload(line: 1, bytes: head))
                return
            }
            if let joined = PayloadSplitter.wrappedBase64(head), acceptsWhole(joined) {
                body(Payload(line: 1, bytes: joined))
                return
            }
        }
        var lineNumber = 0
        var pending = head
        var eof = complete
        var start = 0
        while true {
            if let nl = pending[start...].firstIndex(of: 0x0A) {
                lineNumber += 1
                emit(Array(pending[start..<nl]), line: lineNumber, body)
                start = nl + 1
                continue
            }
            if eof {
                if start < pending.count {
                    lineNumber += 1
                    emit(Array(pending[start...]), line: lineNumber, body)
                }
                return
            }
            pending.removeSubrange(0..<start)
            start = 0
            // A line longer than any payload could be is still read, then reported too large.
            eof = try read(into: &pending, upTo: pending.count + (1 << 20))
        }
    }

    private func emit(_ line: [UInt8], line number: Int, _ body: (Payload) -> Void) {
        var b = line
        if b.last == 0x0D { b.removeLast() }
        guard b.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        body(Payload(line: number, bytes: b))
    }

    /// Reads until `buffer` holds `cap` bytes or the input ends; true at end of input.
    private func read(into buffer: inout [UInt8], upTo cap: Int) throws(ReadError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while buffer.count < cap {
            let want = min(chunk.count, cap - buffer.count)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: String(cString: strerror(errno)))
            }
            if n == 0 { return true }
            buffer.append(contentsOf: chunk[0..<n])
        }
        return false
    }

    /// Several lines of pure base64 where every line but the last has the same length
    /// (64 or 76 as encoders wrap) and only the last may carry padding: one payload.
    static func wrappedBase64(_ input: [UInt8]) -> [UInt8]? {
        var lines = input.split(separator: 0x0A, omittingEmptySubsequences: true).map { line -> ArraySlice<UInt8> in
            line.last == 0x0D ? line.dropLast() : line
        }
        while let last = lines.last, last.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { lines.removeLast() }
        guard lines.count >= 2, let width = lines.first?.count, width >= 16, width % 4 == 0 else { return nil }
        for (i, line) in lines.enumerated() {
            let isLast = i == lines.count - 1
            guard isLast ? line.count <= width : line.count == width else { return nil }
            for c in line {
                switch c {
                case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F: continue
                case 0x3D where isLast: continue
                default: return nil
                }
            }
        }
        return Array(lines.joined())
    }

    struct ReadError: Error {
        var reason: String
    }
}
