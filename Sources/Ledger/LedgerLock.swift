#if canImport(Glibc)
    import Glibc
#endif

/// One run at a time per ledger: an exclusive `flock` on `<ledger>.lock`, holding the
/// owner's pid so the next run can say who has it. Released when the process ends, even
/// if it crashes.
public final class LedgerLock {
    private let fd: Int32
    public let path: String

    public enum Failure: Error, Sendable {
        /// Another process holds the ledger: its pid when it could be read.
        case held(path: String, pid: String?)
        case cannotOpen(path: String, reason: String)
    }

    public init(ledgerPath: String) throws(Failure) {
        path = ledgerPath + ".lock"
        fd = try LedgerLock.acquire(path)
        let me = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = me.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// Opens and locks the file, or says who holds it. Only a locked descriptor leaves here,
    /// so `deinit` never touches a descriptor it does not own.
    private static func acquire(_ path: String) throws(Failure) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buf = [UInt8](repeating: 0, count: 64)
            let n = pread(fd, &buf, buf.count, 0)
            close(fd)
            let pid = n > 0 ? String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: " \n") : nil
            throw .held(path: path, pid: pid?.isEmpty == false ? pid : nil)
        }
        return fd
    }

    deinit {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The pid of the process that holds the lock of the ledger at `ledgerPath`, as the
    /// kernel lists it, without taking the lock (trying it would make a run that starts at
    /// that moment fail); nil when no one holds it, or the list cannot be read.
    ///
    ///     /proc/locks, one lock a line; a waiter's line has "->" after the number:
    ///     1: FLOCK  ADVISORY  WRITE 641 fe:00:16223974 0 EOF
    ///        type   kind      mode  pid major:minor:inode (hex, hex, decimal) start end
    ///                                                          (Linux, Documentation/filesystems/proc.rst)
    public static func holder(ledgerPath: String) -> String? {
        var st = stat()
        guard stat(ledgerPath + ".lock", &st) == 0, let list = readAll("/proc/locks") else { return nil }
        // glibc's dev_t: the major in bits 8-19 and 32-43, the minor in bits 0-7 and 20-31.
        let dev = UInt64(st.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        for line in list.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, f[1] == "FLOCK", f[3] == "WRITE" else { continue }
            let place = f[5].split(separator: ":")
            guard place.count == 3, UInt64(place[0], radix: 16) == major, UInt64(place[1], radix: 16) == minor,
                UInt64(place[2]) == UInt64(st.st_ino)
            else { continue }
            return String(f[4])
        }
        return nil
    }

    /// A small file read whole (the kernel's lists have no size to ask first).
    private static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < 1 << 24 {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
