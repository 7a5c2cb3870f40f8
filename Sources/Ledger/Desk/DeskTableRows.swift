/// A row of one of the desk's tables as both backends read and write it: the columns in one
/// order, read by `init(_:)` and written from `values`.
protocol DeskTableRow: Sendable {
    static var table: String { get }
    /// Its columns, in the order `init(_:)` reads them and `values` gives them.
    static var columns: String { get }

    init?(_ row: DeskRow)
    var values: [DeskValue] { get }
}

extension DeskTableRow {
    /// "a.x, a.y" from "x, y".
    static func columns(of alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingPrefix(" "))" }.joined(separator: ", ")
    }
}

extension DeskUser: DeskTableRow {
    static let table = "desk_users"
    static let columns = "name, role, password_hash, disabled, password_set_at, created_at"

    init?(_ r: DeskRow) {
        guard let name = r.text(0), let role = r.text(1).flatMap(DeskRole.init(rawValue:)), let hash = r.text(2),
            let disabled = r.bool(3), let set = r.int(4), let created = r.int(5)
        else { return nil }
        self.init(
            name: name, role: role, passwordHash: hash, disabled: disabled, passwordSetAt: set, createdAt: created)
    }

    var values: [DeskValue] {
        [.text(name), .text(role.rawValue), .text(passwordHash), .bool(disabled), .int(passwordSetAt), .int(createdAt)]
    }
}

extension AuditEntry: DeskTableRow {
    static let table = "desk_audit"
    static let columns = #"id, at, "user", action, order_id, detail"#

    init?(_ r: DeskRow) {
        guard let id = r.int(0), let at = r.text(1), let user = r.text(2), let action = r.text(3).flatMap(Action.init)
        else { return nil }
        self.init(id: id, at: at, user: user, action: action, orderID: r.text(4), detail: r.text(5))
    }

    var values: [DeskValue] {
        [.int(id), .text(at), .text(user), .text(action.rawValue), .text(orderID), .text(detail)]
    }
}
