import Foundation

/// A temporary file written front to back and then read back front to back, for what one
/// pass over a big night leaves to the next (`NightPasses`): a part's loaded orders, its
/// staged claims, its reports. Unlinked once open, so a run that dies leaves nothing behind.
/// Reading never trusts the bytes: a short or inconsistent file is an error, not a crash.
final class PassFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Writing: the bytes before `buffer` are on disk. Reading: where `buffer` starts.
    private var fileOffset: Int64 = 0
    private var readAt = 0
    private var written: Int64 = 0
    private var reading = false
    private static let chunk = 1 << 20

    init() throws(Failure) {
        switch UnlinkedFile.create("iapscreen-pass", naming: "a pass file") {
        case .success(let fd): self.fd = fd
        case .failure(let f): throw Failure(description: f.description)
        }
        buffer.reserveCapacity(Self.chunk)
    }

    deinit { close(fd) }

    // MARK: Writing

    func put(_ bytes: some Collection<UInt8>) throws(Failure) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunk { try flush() }
    }

    func put(_ v: UInt8) throws(Failure) {
        buffer.append(v)
        if buffer.count >= Self.chunk { try flush() }
    }

    func put(_ v: Bool) throws(Failure) { try put(v ? 1 as UInt8 : 0) }

    func put(_ v: UInt64) throws(Failure) {
        try put(withUnsafeBytes(of: v.littleEndian) { Array($0) })
    }

    func put(_ v: Int64) throws(Failure) { try put(UInt64(bitPattern: v)) }
    func put(_ v: Int32) throws(Failure) { try put(UInt64(UInt32(bitPattern: v))) }
    func put(_ v: UInt32) throws(Failure) { try put(UInt64(v)) }
    func put(_ v: Int) throws(Failure) { try put(Int64(v)) }

    func put(_ s: String) throws(Failure) {
        try put(UInt64(s.utf8.count))
        try put(s.utf8)
    }

    /// 0 for nil, else 1 and the value.
    func put<T>(_ v: T?, _ each: (T) throws(Failure) -> Void) throws(Failure) {
        guard let v else { return try put(0 as UInt8) }
        try put(1 as UInt8)
        try each(v)
    }

    func put(_ s: String?) throws(Failure) { try put(s) { (s) throws(Failure) in try put(s) } }
    func put(_ v: Int64?) throws(Failure) { try put(v) { (v) throws(Failure) in try put(v) } }

    private func flush() throws(Failure) {
        if let reason = UnlinkedFile.write(fd, buffer, at: written) {
            throw Failure(description: "cannot write a pass file: \(reason)")
        }
        written += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: Reading

    /// Ends the writing; what comes next reads from the start.
    func rewind() throws(Failure) {
        if !reading { try flush() }
        reading = true
        buffer = []
        fileOffset = 0
        readAt = 0
    }

    /// How many bytes were written in all.
    var writtenBytes: Int64 { reading ? written : written + Int64(buffer.count) }

    /// Whether everything written has been read.
    var atEnd: Bool { reading && readAt == buffer.count && fileOffset + Int64(buffer.count) >= written }

    /// The next `count` bytes, handed to `body` without a copy.
    func take<R>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(Failure) -> R {
        guard reading else { throw Failure(description: "a pass file read before it was rewound") }
        guard count >= 0, Int64(count) <= written - fileOffset - Int64(readAt) else {
            throw Failure(
                description: "a pass file ends early (\(count) bytes wanted at \(fileOffset + Int64(readAt)))")
        }
        if buffer.count - readAt < count { try refill(atLeast: count) }
        let start = readAt
        readAt += count
        return buffer.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[start..<start + count])) }
    }

    private func refill(atLeast count: Int) throws(Failure) {
        let kept = Array(buffer[readAt...])
        fileOffset += Int64(readAt)
        let want = Int(min(Int64(max(count, Self.chunk)), written - fileOffset)) - kept.count
        var fresh = [UInt8](repeating: 0, count: max(want, 0))
        var got = 0
        while got < fresh.count {
            let n = fresh.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress.map { $0 + got }, $0.count - got, off_t(fileOffset) + off_t(kept.count + got))
            }
            guard n > 0 else {
                throw Failure(description: "cannot read a pass file back: \(String(cString: strerror(errno)))")
            }
            got += n
        }
        buffer = kept + fresh
        readAt = 0
    }

    func uint8() throws(Failure) -> UInt8 { try take(1) { $0[0] } }

    func bool() throws(Failure) -> Bool {
        switch try uint8() {
        case 0: return false
        case 1: return true
        case let b: throw Failure(description: "a pass file holds \(b) where a flag belongs")
        }
    }

    func uint64() throws(Failure) -> UInt64 {
        try take(8) { raw in
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(raw[k]) << (8 * k) }
            return v
        }
    }

    func int64() throws(Failure) -> Int64 { Int64(bitPattern: try uint64()) }

    func int32() throws(Failure) -> Int32 {
        let v = try uint64()
        guard v <= UInt64(UInt32.max) else { throw Failure(description: "a pass file holds \(v) for 32 bits") }
        return Int32(bitPattern: UInt32(v))
    }

    func uint32() throws(Failure) -> UInt32 { UInt32(bitPattern: try int32()) }

    func int() throws(Failure) -> Int {
        let v = try int64()
        guard let i = Int(exactly: v) else { throw Failure(description: "a pass file holds \(v) for an index") }
        return i
    }

    func string() throws(Failure) -> String {
        let n = try uint64()
        guard n <= UInt64(Int32.max) else { throw Failure(description: "a pass file holds a string of \(n) bytes") }
        return try take(Int(n)) { String(decoding: $0, as: UTF8.self) }
    }

    func optional<T>(_ each: () throws(Failure) -> T) throws(Failure) -> T? {
        try bool() ? try each() : nil
    }

    func optionalString() throws(Failure) -> String? { try optional { () throws(Failure) in try string() } }
    func optionalInt64() throws(Failure) -> Int64? { try optional { () throws(Failure) in try int64() } }

    /// A count of things that follow, each at least a byte: never more than the file holds.
    func count() throws(Failure) -> Int {
        let n = try int()
        guard n >= 0, n <= Int(clamping: writtenBytes) else {
            throw Failure(description: "a pass file holds a count of \(n)")
        }
        return n
    }

    /// An enum kept as its raw text.
    func rawValue<T: RawRepresentable<String>>(_: T.Type) throws(Failure) -> T {
        let s = try string()
        guard let v = T(rawValue: s) else { throw Failure(description: "a pass file holds \(s) for \(T.self)") }
        return v
    }

    func optionalRawValue<T: RawRepresentable<String>>(_: T.Type) throws(Failure) -> T? {
        try optional { () throws(Failure) in try rawValue(T.self) }
    }
}
