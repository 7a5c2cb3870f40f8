import Decompression

/// Everything a stream yields, read in small chunks so refills and member boundaries fall
/// mid-buffer.
func readAll(_ stream: ByteStream, chunk: Int = 4_096) throws(InputError) -> [UInt8] {
    var out: [UInt8] = []
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { buffer.deallocate() }
    while true {
        let n = try stream.read(into: buffer)
        if n == 0 { return out }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<n]))
    }
}

/// Bytes that do not compress much: a text of counters.
func sampleText(lines: Int) -> [UInt8] {
    var out: [UInt8] = []
    for i in 0..<lines {
        out.append(contentsOf: "line \(i) of the sample, value \(i &* 2_654_435_761 % 1_000_003)\n".utf8)
    }
    return out
}
