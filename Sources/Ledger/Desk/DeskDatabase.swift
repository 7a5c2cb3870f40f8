/// A connection as the desk's logic (`LedgerDeskStore`) uses it, whichever backend holds the
/// ledger: statements in the SQL both run (`SQLDialect`), values bound, rows read as text.
protocol DeskDatabase: AnyObject {
    var dialect: SQLDialect { get }

    /// The rows of `sql`, `values` bound to its `?1`, `?2`, …, each read by `row`; a row it
    /// cannot read (nil) is left out.
    func rows<T>(_ sql: String, _ values: [DeskValue], _ row: (DeskRow) -> T?) throws(LedgerError) -> [T]

    /// Runs `sql`, `values` bound; how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [DeskValue]) throws(LedgerError) -> Int

    /// `body` in one read transaction: one snapshot.
    func reading<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T

    /// `body` in one write transaction, committed when `keep` holds for what it returned and
    /// rolled back otherwise (a refusal changes nothing), or when it throws.
    func writing<T>(keep: (T) -> Bool, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T
}

extension DeskDatabase {
    /// `body` in one write transaction, committed unless it throws.
    func writing<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        try writing(keep: { _ in true }, body)
    }
}

/// A value bound to a statement's parameter; a nil payload is NULL.
enum DeskValue: Equatable, Sendable {
    case text(String?)
    case int(Int64?)
    /// SQLite keeps 1 or 0, PostgreSQL a boolean.
    case bool(Bool)
}

/// One row of a result, each cell as its backend prints it (an integer in decimal, a boolean
/// SQLite's 1/0 or PostgreSQL's t/f). A cell past the row's end reads as NULL.
struct DeskRow {
    let cells: [String?]

    func text(_ i: Int) -> String? { cells.indices.contains(i) ? cells[i] : nil }

    /// nil for NULL, and for a cell that holds no integer.
    func int(_ i: Int) -> Int64? { text(i).flatMap { Int64($0) } }

    /// nil for NULL, and for a cell that holds no boolean.
    func bool(_ i: Int) -> Bool? {
        switch text(i) {
        case "1", "t": true
        case "0", "f": false
        default: nil
        }
    }
}
