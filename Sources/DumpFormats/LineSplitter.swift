import Decompression
import IAPBasics

/// Finds the lines of a record buffer one at a time, LF-separated, without copying them: a
/// line past `maxBytes` is dropped as it is read (memory stays at one chunk plus the cap)
/// and reported as too long.
struct LineSplitter {
    let buffer: RecordBuffer
    let maxBytes: Int

    /// The length of the next line at `buffer.start` (without its LF) and whether it was
    /// too long; nil at the end. The caller consumes `length + 1` once done with it.
    func nextLineLength() throws(InputError) -> (length: Int, tooLong: Bool)? {
        var searched = 0
        var tooLong = false
        while true {
            if let lf = ByteSearch.firstIndex(of: 0x0A, in: buffer.base, from: buffer.start + searched, to: buffer.end)
            {
                return (lf - buffer.start, tooLong || (lf - buffer.start) > maxBytes)
            }
            searched = buffer.end - buffer.start
            if searched > maxBytes {
                tooLong = true
                buffer.discardAll()
                searched = 0
            }
            guard try buffer.fill() else {
                let rest = buffer.end - buffer.start
                return rest == 0 && !tooLong ? nil : (rest, tooLong)
            }
        }
    }

    /// The line without surrounding whitespace (CR included), and how much was cut in front.
    static func trimmed(_ bytes: UnsafeRawBufferPointer) -> (UnsafeRawBufferPointer, Int) {
        var lower = 0
        var upper = bytes.count
        while lower < upper, ByteSearch.isSpace(bytes[lower]) { lower += 1 }
        while upper > lower, ByteSearch.isSpace(bytes[upper - 1]) { upper -= 1 }
        return (UnsafeRawBufferPointer(rebasing: bytes[lower..<upper]), lower)
    }
}
