/// How a desk runs (`desk serve`'s options; CONTRACT §14's defaults).
public struct DeskSettings: Sendable {
    /// How long a claim lasts (`--claim-minutes`).
    public var claimMinutes: Int64 = 30
    /// A session ends after this long without a request (`--session-idle-minutes`).
    public var sessionIdleMinutes: Int64 = 30
    /// And after this long whatever (`--session-max-hours`).
    public var sessionMaxHours: Int64 = 12
    /// This many failed logins of one name within `lockoutMinutes` lock it…
    public var lockoutFailures = 5
    /// …until this long after the last of them.
    public var lockoutMinutes: Int64 = 15
    /// At most this many password checks at once: each holds 64 MiB for ~0.1 s, and a flood of
    /// logins must not take the memory or the cores the other users' requests need.
    public var concurrentLogins = 2
    /// A session's last use is written at most this often (ms): a read of the queue is not a
    /// write each time; the idle time-out is this much less exact.
    public var touchEveryMilliseconds: Int64 = 5_000

    public init() {}

    static let minute: Int64 = 60_000
    var claimMillis: Int64 { claimMinutes * DeskSettings.minute }
    var idleMillis: Int64 { sessionIdleMinutes * DeskSettings.minute }
    var maxMillis: Int64 { sessionMaxHours * 60 * DeskSettings.minute }
    var lockoutMillis: Int64 { lockoutMinutes * DeskSettings.minute }
}
