import CSQLite3

#if canImport(Glibc)
    import Glibc
#endif

/// How a database is opened only to be read, so that reading it creates no file beside it and
/// changes no byte of it, also where the reader may not write the file or its directory.
///
/// SQLITE_OPEN_READONLY alone is not that: on a WAL-mode file with no `-wal` (the last writer
/// closed cleanly), SQLite creates `-wal` and `-shm` to read it, fails where the directory is
/// read-only ("attempt to write a readonly database"), and a reader leaves them behind.
/// - No `-wal` and no `-journal` beside the file: the file alone holds every committed
///   transaction, so it is opened `immutable=1` (no lock, no file created). Immutable also
///   means no lock keeps a writer from changing the file while it is read, so the file's stamp
///   is taken before looking for those journals, and every read is checked against it
///   (`SQLiteConnection.confirmUnchanged`): a read that may mix before and after fails.
/// - A `-wal` (a writer at work, or one that crashed) or a hot `-journal`: only SQLite's own
///   protocol reads the transactions they hold, so the file is opened plainly read-only and
///   SQLite uses what is there (it may update the `-shm` index, never the database).
/// SQLite looks for the journals beside the file a symlink names, so they are too.
struct ReadOnlyOpening {
    /// What `sqlite3_open_v2` is given, and its flags.
    let filename: String
    let flags: Int32
    /// The file before it was opened immutable; nil when SQLite's locks protect the reading.
    let stamp: FileStamp?

    init(_ path: String) {
        let file = ReadOnlyOpening.resolved(path) ?? path
        if let stamp = FileStamp(file), ReadOnlyOpening.isAbsent(file + "-wal"),
            ReadOnlyOpening.isAbsent(file + "-journal")
        {
            filename = ReadOnlyOpening.uri(file) + "?immutable=1"
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            self.stamp = stamp
        } else {
            filename = path
            flags = SQLITE_OPEN_READONLY
            stamp = nil
        }
    }

    /// The file `path` names, symlinks followed; nil when there is none.
    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// Only a name that is surely not there: one that cannot be looked at may be a journal.
    private static func isAbsent(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) != 0 && errno == ENOENT
    }

    /// `path` as an SQLite `file:` URI: every byte but letters, digits, `-._~` and `/`
    /// percent-encoded, so no `?`, `#` or `%` in a name is read as URI syntax; an absolute
    /// path gets the empty authority (`file:///…`), so one starting `//` is no host.
    static func uri(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array((path.hasPrefix("/") ? "file://" : "file:").utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
