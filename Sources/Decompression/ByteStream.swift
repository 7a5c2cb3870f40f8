/// A pull source of bytes: a file, or a decompressor over another stream.
public protocol ByteStream: AnyObject {
    /// Fills the front of `buffer` and returns how many bytes were written; 0 means the
    /// end of the stream (and only then).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int
}

extension ByteStream {
    /// Reads until `buffer` is full or the stream ends; returns the bytes written.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
