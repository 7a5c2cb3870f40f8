#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says of a file that any write to it changes: which file it is (device,
/// inode), its size, and its modification and change times. A path whose stamp is the same
/// later was not written in between, as far as the file system's clock can tell.
struct FileStamp: Equatable {
    let path: String
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let modified: Time
    private let changed: Time

    /// A time as `stat` gives it (timespec is not Equatable).
    private struct Time: Equatable {
        var seconds: Int
        var nanoseconds: Int

        init(_ t: timespec) { (seconds, nanoseconds) = (t.tv_sec, t.tv_nsec) }
    }

    /// The stamp of `path` now; nil when it cannot be looked at.
    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.path = path
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Time(st.st_mtim)
        changed = Time(st.st_ctim)
    }

    /// Whether the file at `path` still has this stamp.
    var isCurrent: Bool { FileStamp(path) == self }
}
