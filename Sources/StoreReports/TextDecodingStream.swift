import Decompression

/// A text stream as UTF-8, whatever its byte order mark said: UTF-8 (mark dropped),
/// UTF-16LE (`FF FE`) or UTF-16BE (`FE FF`) transcoded; no mark: UTF-8 as it is. Google
/// ships some reports in UTF-16 (its help says to convert them before importing).
/// A lone surrogate or a trailing odd byte becomes U+FFFD, so a bad cell is reported by
/// the row reader instead of stopping the file. UTF-16 is read into buffers of 4 bytes or more.
public final class TextDecodingStream: ByteStream {
    public enum Encoding: String, Sendable {
        case utf8 = "UTF-8"
        case utf16LE = "UTF-16LE"
        case utf16BE = "UTF-16BE"
    }

    private let source: ByteStream
    public private(set) var encoding = Encoding.utf8
    private var sniffed = false
    private let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
    private var rawStart = 0
    private var rawEnd = 0
    private var sourceEnded = false

    public init(source: ByteStream) {
        self.source = source
    }

    deinit { raw.deallocate() }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        guard buffer.count > 0 else { return 0 }
        if !sniffed { try sniff() }
        if encoding == .utf8 {
            // What the sniff read first, then straight from the source.
            if rawStart < rawEnd {
                let n = min(buffer.count, rawEnd - rawStart)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[rawStart..<(rawStart + n)]))
                rawStart += n
                return n
            }
            return try source.read(into: buffer)
        }
        return try transcode(into: buffer)
    }

    private func sniff() throws(InputError) {
        sniffed = true
        while rawEnd < 3, try refill() {}
        if rawEnd >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF {
            rawStart = 3
        } else if rawEnd >= 2, raw[0] == 0xFF, raw[1] == 0xFE {
            encoding = .utf16LE
            rawStart = 2
        } else if rawEnd >= 2, raw[0] == 0xFE, raw[1] == 0xFF {
            encoding = .utf16BE
            rawStart = 2
        }
    }

    /// Moves unread bytes to the front and reads more behind them; false at the end.
    private func refill() throws(InputError) -> Bool {
        guard !sourceEnded else { return false }
        if rawStart > 0 {
            let kept = rawEnd - rawStart
            for i in 0..<kept { raw[i] = raw[rawStart + i] }
            rawStart = 0
            rawEnd = kept
        }
        let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[rawEnd...]))
        if n == 0 { sourceEnded = true }
        rawEnd += n
        return n > 0
    }

    private func unit(at i: Int) -> UInt16 {
        encoding == .utf16LE ? UInt16(raw[i]) | UInt16(raw[i + 1]) << 8 : UInt16(raw[i]) << 8 | UInt16(raw[i + 1])
    }

    private func transcode(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        var out = 0
        // Four bytes of room: the longest UTF-8 sequence.
        while out + 4 <= buffer.count {
            if rawEnd - rawStart < 4, !sourceEnded {
                _ = try refill()
                continue
            }
            let available = rawEnd - rawStart
            if available < 2 {
                if available == 1 {
                    rawStart = rawEnd
                    out += put(0xFFFD, into: buffer, at: out)
                }
                break
            }
            var scalar = UInt32(unit(at: rawStart))
            rawStart += 2
            if scalar >= 0xD800, scalar < 0xDC00 {
                if rawEnd - rawStart >= 2, case let low = UInt32(unit(at: rawStart)), low >= 0xDC00, low < 0xE000 {
                    rawStart += 2
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    scalar = 0xFFFD
                }
            } else if scalar >= 0xDC00, scalar < 0xE000 {
                scalar = 0xFFFD
            }
            out += put(scalar, into: buffer, at: out)
        }
        return out
    }

    private func put(_ scalar: UInt32, into buffer: UnsafeMutableRawBufferPointer, at i: Int) -> Int {
        switch scalar {
        case ..<0x80:
            buffer[i] = UInt8(scalar)
            return 1
        case ..<0x800:
            buffer[i] = UInt8(0xC0 | scalar >> 6)
            buffer[i + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            buffer[i] = UInt8(0xE0 | scalar >> 12)
            buffer[i + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            buffer[i + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            buffer[i] = UInt8(0xF0 | scalar >> 18)
            buffer[i + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            buffer[i + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            buffer[i + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
