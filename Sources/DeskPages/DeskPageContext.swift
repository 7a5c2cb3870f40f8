import Ledger

/// Who is looking and what their forms must carry.
public struct DeskPageContext: Sendable, Equatable {
    public var user: String
    public var role: DeskRole
    public var csrf: String
    /// Now, in ms since 1970: claims are shown with the time they have left.
    public var now: Int64

    public init(user: String, role: DeskRole, csrf: String, now: Int64) {
        self.user = user
        self.role = role
        self.csrf = csrf
        self.now = now
    }
}
