import Synchronization

/// Where a gzip file can be inflated from without inflating what comes before: the starts
/// of its members (RFC 1952 §2.2: each member is a whole deflate stream, so a member inflates
/// alone). Exports written by parallel compressors and our own sample worlds hold many; a file
/// of one member has only its start. Noted while the file is read, so that `explain` can read
/// one record of a big dump again (`ResumedInput`).
///
/// A start is kept only once `spacing` decompressed bytes have passed since the last one kept:
/// a file of a million tiny members keeps a few points per megabyte of its content, and never
/// more than `maxPoints` (the spacing doubles, every other point dropped, when it would).
public final class GzipCheckpoints: Sendable {
    /// A member's start: its first byte in the file, and how many decompressed bytes the
    /// members before it held.
    public struct Point: Sendable, Equatable {
        public let compressedOffset: Int64
        public let decompressedOffset: Int64

        public init(compressedOffset: Int64, decompressedOffset: Int64) {
            self.compressedOffset = compressedOffset
            self.decompressedOffset = decompressedOffset
        }

        /// The start of the file: always a member's.
        public static let start = Point(compressedOffset: 0, decompressedOffset: 0)
    }

    public static let defaultSpacing: Int64 = 1 << 20
    public static let maxPoints = 1 << 16

    private struct Kept {
        var points: [Point] = [.start]
        var spacing: Int64
    }

    /// Noted on the inflating thread, read once the file is read.
    private let kept: Mutex<Kept>

    public init(spacing: Int64 = GzipCheckpoints.defaultSpacing) {
        kept = Mutex(Kept(spacing: max(spacing, 1)))
    }

    /// Every start kept, the file's own first.
    public var points: [Point] { kept.withLock { $0.points } }

    /// A member starts at `compressed` in the file, after `decompressed` bytes of content.
    func memberStarts(compressed: Int64, decompressed: Int64) {
        kept.withLock { k in
            guard let last = k.points.last, decompressed - last.decompressedOffset >= k.spacing else { return }
            k.points.append(Point(compressedOffset: compressed, decompressedOffset: decompressed))
            if k.points.count > GzipCheckpoints.maxPoints {
                k.points = k.points.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                k.spacing *= 2
            }
        }
    }
}
