import IAPBasics

/// `reviewers.csv`: `user_id,from,until,note` — App Review accounts and the windows during
/// which their sandbox purchases are expected. Inclusive at both ends; a bare date covers
/// its whole UTC day; an empty `until` is open-ended.
public struct Reviewers: Sendable {
    public struct Window: Sendable, Equatable {
        public var userID: String
        public var from: Timestamp?
        public var until: Timestamp?
        public var note: String
    }

    public private(set) var windows: [String: [Window]] = [:]

    public init(_ list: [Window] = []) {
        for w in list { windows[w.userID, default: []].append(w) }
    }

    /// The window that covers this account at this time, if any.
    public func window(for userID: String, at time: Timestamp) -> Window? {
        windows[userID]?.first { w in
            (w.from.map { time >= $0 } ?? true) && (w.until.map { time <= $0 } ?? true)
        }
    }
}
