import Synchronization

/// Bytes of the inputs read so far: added on the threads that read the files, read by
/// whoever shows the progress.
package final class ByteCounter: Sendable {
    private let value = Atomic<Int>(0)

    package init() {}

    package func add(_ n: Int) { value.add(n, ordering: .relaxed) }
    package var count: Int { value.load(ordering: .relaxed) }
}

/// Where a night tells how far it is: the bytes read, the orders so far, the step it is at.
/// The command line draws it (docs/monitoring.md); tests and `merge` pass none.
package protocol NightProgress: AnyObject {
    var bytes: ByteCounter { get }
    /// Called as often as the reader likes, with the orders read so far.
    func tick(count: Int)
    /// A step after the reading (waiting for shards, claims, reports).
    func phase(_ what: String, count: Int)
}
