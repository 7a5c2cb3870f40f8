#if canImport(Glibc)
    import Glibc
#endif

/// A thread of our own that its owner waits for: `join()` (or the last reference going
/// away) returns only once the thread has ended, its thread-local destructors run (OpenSSL's
/// per-thread clean-up among them). Foundation's `Thread` is detached and cannot be waited
/// for, so a command using it could return, and the process exit, while one of its threads
/// was still inside a C library.
///
/// It must not be released on its own thread (a thread cannot join itself).
public final class JoinedThread {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let handle: pthread_t
    private var joined = false

    /// Starts `body` on a new thread with a stack of `stackSize` bytes.
    public init(stackSize: Int = 8 << 20, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(
            &handle, &attributes,
            { context in
                // The body (and all it captured) is released here, on the thread, before it ends.
                if let context { Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run() }
                return nil
            }, context)
        guard status == 0 else {
            // Out of threads or memory: no command can go on without its readers and workers.
            fatalError("cannot start a thread: \(String(cString: strerror(status)))")
        }
        self.handle = handle
    }

    /// Waits until the thread has ended; at once when it already has been waited for.
    public func join() {
        guard !joined else { return }
        joined = true
        precondition(pthread_equal(handle, pthread_self()) == 0, "a thread cannot wait for itself")
        pthread_join(handle, nil)
    }

    deinit { join() }
}
