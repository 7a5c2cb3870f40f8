import Ledger

/// `--ledger` (docs/ledger.md): `sqlite:PATH`, `none`, or a libpq URI (`postgres://…`,
/// `postgresql://…`). A URI may carry a password, so messages name `shown`, never the text.
enum LedgerSpec {
    case none
    case sqlite(String)
    /// `target`: where the URI points, without its password.
    case postgres(uri: String, target: String)

    static let defaultText = "sqlite:iapscreen-ledger.sqlite"

    struct Invalid: Error {
        var message: String
    }

    /// `--ledger`'s value, or the default.
    static func parse(_ args: ParsedArguments, option: String = "--ledger") -> Result<LedgerSpec, Invalid> {
        parse(args.one(option) ?? defaultText, option: option)
    }

    static func parse(_ text: String, option: String = "--ledger") -> Result<LedgerSpec, Invalid> {
        if text == "none" { return .success(.none) }
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            return path.isEmpty
                ? .failure(Invalid(message: "\(option) sqlite: needs a path, e.g. \(defaultText)"))
                : .success(.sqlite(path))
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            do {
                return .success(.postgres(uri: text, target: try PostgresLedger.target(of: text)))
            } catch {
                return .failure(Invalid(message: "\(option): \(error.message)"))
            }
        }
        // Not echoed whole: a mistyped scheme may still carry a password.
        let shown = text.contains("://") ? "a \(text.prefix { $0 != ":" })://… URI" : "'\(text)'"
        return .failure(
            Invalid(message: "\(option) takes sqlite:PATH, postgres://… (a libpq URI) or none, not \(shown)"))
    }

    /// The ledger as messages name it.
    var shown: String {
        switch self {
        case .none: "none"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(_, let target): target
        }
    }
}
