import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A chromedriver of our own: a child process leading a process group of its own, so that
/// stopping the group also stops every chromium process it started, listening on a loopback port.
final class ChromeDriverProcess {
    let pid: pid_t
    let port: Int
    /// Where its stdout and stderr go: what it said is shown when it does not start.
    let logPath: String
    private var reaped = false

    private init(pid: pid_t, port: Int, logPath: String) {
        self.pid = pid
        self.port = port
        self.logPath = logPath
    }

    deinit { stop() }

    /// Starts `executable` on a free loopback port and waits until its `/status` says ready. When
    /// another process took the port in between, it is tried again on another one.
    static func start(executable: String, directory: String) throws(WebDriverError) -> ChromeDriverProcess {
        var lastFailure = WebDriverError("chromedriver did not start", "no attempt made")
        for attempt in 1...3 {
            let port = try freeLoopbackPort()
            let logPath = directory + "/chromedriver-\(attempt).log"
            let pid = try spawn(executable, ["--port=\(port)"], output: logPath)
            let process = ChromeDriverProcess(pid: pid, port: port, logPath: logPath)
            do {
                try process.waitUntilReady()
                return process
            } catch {
                lastFailure = error
                process.stop()
            }
        }
        throw lastFailure
    }

    /// Polls `GET /status` until it says `ready`; fails at once when chromedriver exits, and after
    /// `WebDriver.hangCap` when it neither answers nor exits.
    private func waitUntilReady() throws(WebDriverError) {
        let client = WebDriverHTTP(port: port, timeout: 5)
        let cap = Date().addingTimeInterval(WebDriver.hangCap)
        while Date() < cap {
            if hasExited { throw notStarted("it exited") }
            if let status = try? client.send("GET", "/status") as? [String: Any], status["ready"] as? Bool == true {
                return
            }
            usleep(50_000)
        }
        throw notStarted("it was not ready after \(Int(WebDriver.hangCap)) s")
    }

    private func notStarted(_ why: String) -> WebDriverError {
        let said = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return WebDriverError("chromedriver did not start", "\(why) (port \(port)); it said: \(said.suffix(2000))")
    }

    /// Stops the whole process group: SIGTERM, up to five seconds to exit, then SIGKILL. The group
    /// is signalled before our child is reaped, while its id (the group's) cannot be reused.
    func stop() {
        guard !reaped else { return }
        reaped = true
        kill(-pid, SIGTERM)
        let grace = Date().addingTimeInterval(5)
        while !hasExited && Date() < grace { usleep(20_000) }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// Whether the child has exited, without reaping it (WNOWAIT).
    private var hasExited: Bool {
        var info = siginfo_t()
        let found = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return found == 0 && info.si_signo == SIGCHLD
    }

    /// A port the kernel hands out on 127.0.0.1 at this moment, released again for chromedriver.
    private static func freeLoopbackPort() throws(WebDriverError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebDriverError("chromedriver did not start", "socket: \(errnoText())") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw WebDriverError("chromedriver did not start", "no free port: \(errnoText())") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts `executable` in a new process group, stdin from /dev/null, stdout and stderr to `output`.
    private static func spawn(_ executable: String, _ options: [String], output: String) throws(WebDriverError)
        -> pid_t
    {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own; and no signal blocked or ignored: the calling thread (a
        // dispatch worker) blocks nearly all, and a child would inherit that and ignore SIGTERM.
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = ([executable] + options).map { strdup($0) } + [nil]
        defer {
            for argument in arguments { free(argument) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, arguments, environ)
        guard status == 0 else {
            throw WebDriverError(
                "chromedriver did not start", "cannot run \(executable): \(String(cString: strerror(status)))")
        }
        return pid
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
