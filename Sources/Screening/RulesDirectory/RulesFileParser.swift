import IAPBasics

/// What the `.rules` files of a Rules directory say, merged in file-name order.
public struct RuleSettings: Sendable {
    /// The named rules the files may tune (and the engine asks).
    public let named: NamedRules
    public var disabled: Set<RuleID> = []
    public var severities: [RuleID: Severity] = [:]
    public var parameters: [RuleID: [String: Int]] = [:]
    /// Rule ids (named or custom) whose findings a listed reviewer is exempt from.
    public var reviewerExemptions: Set<String> = [SandboxInProduction.id.rawValue]
    public var customRules: [CustomRule] = []
    /// How refund requests are answered (`consumption …`).
    public var consumption = ConsumptionSettings()

    public init(named: NamedRules = .standard) {
        self.named = named
    }

    public func isEnabled(_ id: RuleID) -> Bool { !disabled.contains(id) }
    public func severity(_ id: RuleID) -> Severity { severities[id] ?? named.rule(id)?.defaultSeverity ?? .info }

    public func parameter(_ id: RuleID, _ name: String) -> Int {
        if let v = parameters[id]?[name] { return v }
        return named.rule(id)?.parameters.first { $0.name == name }?.defaultValue ?? 0
    }
}

/// `flag <severity> <id> if <condition> [say "<message>"]`
public struct CustomRule: Sendable, Equatable {
    public var id: String
    public var severity: Severity
    public var condition: Condition
    public var message: String?
    public var file: String
    public var line: Int
}

/// Reads the `.rules` language (Rules/README.md documents it for analysts):
///
///     rule <rule-id> [on|off] [severity <level>] [<parameter> <whole number|yes|no>]...
///     exempt reviewers from <rule-id>...
///     flag <severity> <custom-id> if <condition> [say "<message>"]
///     consumption <parameter> <value> [<parameter> <value>]...
///
/// Every problem is collected (not only the first) with its line and column.
struct RulesFileParser {
    let file: String
    var settings: RuleSettings
    var diagnostics: [RulesDiagnostic] = []
    /// Whether an `exempt` line of this file or an earlier one replaced the default list:
    /// the statements of all files add up.
    private(set) var exemptionsStated: Bool

    init(file: String, settings: RuleSettings, exemptionsStated: Bool = false) {
        self.file = file
        self.settings = settings
        self.exemptionsStated = exemptionsStated
    }

    mutating func parse(_ text: String) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(rawLine)
            if line.hasSuffix("\r") { line.removeLast() }
            if index == 0, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
            parseLine(line, number: index + 1)
        }
    }

    private mutating func parseLine(_ line: String, number: Int) {
        let tokens: [RuleToken]
        switch RuleTokenizer.tokens(line) {
        case .success(let t): tokens = t
        case .failure(let f):
            diagnostics.append(
                RulesDiagnostic(
                    file: file, line: number, column: f.column, message: f.message,
                    hint: "close the string with \"", sourceLine: line))
            return
        }
        guard let head = tokens.first else { return }
        var cursor = TokenCursor(tokens: tokens, line: line, lineNumber: number, file: file)
        do throws(RulesDiagnostic) {
            switch head.kind {
            case .word("rule"): try parseRule(&cursor)
            case .word("exempt"): try parseExempt(&cursor)
            case .word("flag"): try parseFlag(&cursor)
            case .word("consumption"): try parseConsumption(&cursor)
            default:
                throw cursor.error(
                    at: head, "unknown statement '\(head.text)'",
                    hint: nearest(head.text, in: ["rule", "exempt", "flag", "consumption"]).map {
                        "did you mean '\($0)'?"
                    } ?? "a line starts with rule, exempt, flag or consumption (or # for a comment)")
            }
        } catch {
            diagnostics.append(error)
        }
    }

    // MARK: rule <id> …

    private mutating func parseRule(_ c: inout TokenCursor) throws(RulesDiagnostic) {
        c.advance()
        let idToken = try c.expectWord("a rule id", hint: "e.g. rule expired-validity severity medium")
        guard let rule = settings.named.rule(named: idToken.name) else {
            let known = settings.named.ids.map(\.rawValue)
            throw c.error(
                at: idToken.token, "unknown rule '\(idToken.name)'",
                hint: nearest(idToken.name, in: known).map { "did you mean '\($0)'?" }
                    ?? "named rules: \(known.joined(separator: ", "))")
        }
        let id = rule.id
        guard !c.atEnd else {
            throw c.error(
                at: idToken.token, "rule \(id.rawValue) says nothing",
                hint: "add on, off, severity <level> or a parameter")
        }
        while let t = c.peek {
            c.advance()
            switch t.kind {
            case .word("on"): settings.disabled.remove(id)
            case .word("off"): settings.disabled.insert(id)
            case .word("severity"):
                settings.severities[id] = try c.expectSeverity()
            case .word(let name):
                guard rule.parameters.contains(where: { $0.name == name }) else {
                    let known = rule.parameters.map(\.name)
                    throw c.error(
                        at: t, "rule \(id.rawValue) has no parameter '\(name)'",
                        hint: known.isEmpty
                            ? "\(id.rawValue) takes no parameters; use on, off or severity"
                            : (nearest(name, in: known).map { "did you mean '\($0)'?" }
                                ?? "its parameters: \(known.joined(separator: ", "))"))
                }
                settings.parameters[id, default: [:]][name] = try c.expectParameterValue(name)
            default:
                throw c.error(at: t, "unexpected '\(t.text)'", hint: "write on, off, severity <level> or a parameter")
            }
        }
    }

    // MARK: consumption <parameter> <value> …

    private mutating func parseConsumption(_ c: inout TokenCursor) throws(RulesDiagnostic) {
        guard let head = c.peek else { return }
        c.advance()
        let known = ConsumptionSettings.parameters.map(\.name)
        guard !c.atEnd else {
            throw c.error(
                at: head, "consumption says nothing",
                hint:
                    "e.g. consumption decline_after_refunds 3 prorate yes (parameters: \(known.joined(separator: ", ")))"
            )
        }
        while let t = c.peek {
            c.advance()
            guard case .word(let name) = t.kind,
                let parameter = ConsumptionSettings.parameters.first(where: { $0.name == name })
            else {
                throw c.error(
                    at: t, "consumption has no parameter '\(t.text)'",
                    hint: nearest(t.text, in: known).map { "did you mean '\($0)'?" }
                        ?? "its parameters: \(known.joined(separator: ", "))")
            }
            let valueToken = c.peek
            let value = try c.expectParameterValue(name)
            guard parameter.range.contains(value) else {
                let takes =
                    parameter.isYesNo
                    ? "yes or no" : "a whole number from \(parameter.range.lowerBound) to \(parameter.range.upperBound)"
                throw c.error(
                    at: valueToken ?? t, "consumption \(name) takes \(takes), not '\(valueToken?.text ?? "")'")
            }
            settings.consumption.set(name, value)
        }
    }

    // MARK: exempt reviewers from …

    private mutating func parseExempt(_ c: inout TokenCursor) throws(RulesDiagnostic) {
        c.advance()
        guard let who = c.peek, who.isWord("reviewers") else {
            throw c.errorAtCurrent("expected 'reviewers'", hint: "exempt reviewers from sandbox-in-production ...")
        }
        c.advance()
        guard let from = c.peek, from.isWord("from") else {
            throw c.errorAtCurrent("expected 'from'", hint: "exempt reviewers from sandbox-in-production ...")
        }
        c.advance()
        var ids: Set<String> = []
        while let t = c.peek {
            c.advance()
            if t.isSymbol(",") { continue }
            guard case .word(let name) = t.kind else {
                throw c.error(at: t, "expected a rule id", hint: "list rule ids separated by spaces")
            }
            ids.insert(name)
            exemptionTokens.append((name, t, c.line, c.lineNumber))
        }
        guard !ids.isEmpty else {
            throw c.errorAtCurrent("exempt reviewers from what?", hint: "name at least one rule id")
        }
        // The directory's first exempt line replaces the default; later ones, of any file, add to it.
        if !exemptionsStated {
            settings.reviewerExemptions = []
            exemptionsStated = true
        }
        settings.reviewerExemptions.formUnion(ids)
    }

    /// Exempted ids are checked after every file is read (custom ids may be defined later).
    var exemptionTokens: [(name: String, token: RuleToken, line: String, lineNumber: Int)] = []

    // MARK: flag <severity> <id> if <condition> [say "<message>"]

    private mutating func parseFlag(_ c: inout TokenCursor) throws(RulesDiagnostic) {
        c.advance()
        let severity = try c.expectSeverity()
        let idToken = try c.expectWord("a name for the rule", hint: "flag high big-sandbox if ...")
        let id = idToken.name
        guard settings.named.rule(named: id) == nil else {
            throw c.error(
                at: idToken.token, "'\(id)' is a named rule; a custom rule needs a name of its own",
                hint: "use `rule \(id) severity …` to change the named rule")
        }
        guard id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }), id.first?.isLetter == true else {
            throw c.error(at: idToken.token, "a rule name uses letters, digits, - and _, and starts with a letter")
        }
        if let earlier = settings.customRules.first(where: { $0.id == id }) {
            throw c.error(
                at: idToken.token, "custom rule '\(id)' is defined twice",
                hint: "first defined at \(earlier.file):\(earlier.line)")
        }
        guard let ifToken = c.peek, ifToken.isWord("if") else {
            throw c.errorAtCurrent(
                "expected 'if' and a condition", hint: "flag \(severity.name) \(id) if order.amount > 50")
        }
        c.advance()
        let condition = try c.parseCondition()
        var message: String?
        if let say = c.peek, say.isWord("say") {
            c.advance()
            guard let m = c.peek, case .string(let text) = m.kind else {
                throw c.errorAtCurrent("expected a quoted message after 'say'", hint: "say \"why this is suspicious\"")
            }
            c.advance()
            message = text
        }
        if let extra = c.peek {
            throw c.error(
                at: extra, "unexpected '\(extra.text)' after the condition",
                hint: "join conditions with and / or; a message goes after say \"…\"")
        }
        settings.customRules.append(
            CustomRule(
                id: id, severity: severity, condition: condition, message: message,
                file: file, line: c.lineNumber))
    }
}

/// Walks the tokens of one line; errors point at a token.
struct TokenCursor {
    let tokens: [RuleToken]
    let line: String
    let lineNumber: Int
    let file: String
    var index = 0

    init(tokens: [RuleToken], line: String, lineNumber: Int, file: String) {
        self.tokens = tokens
        self.line = line
        self.lineNumber = lineNumber
        self.file = file
    }

    var peek: RuleToken? { index < tokens.count ? tokens[index] : nil }
    var atEnd: Bool { index >= tokens.count }
    mutating func advance() { index += 1 }

    func error(at t: RuleToken, _ message: String, hint: String? = nil) -> RulesDiagnostic {
        RulesDiagnostic(
            file: file, line: lineNumber, column: t.column, length: t.length, message: message,
            hint: hint, sourceLine: line)
    }

    /// At the current token, or just past the end of the line.
    func errorAtCurrent(_ message: String, hint: String? = nil) -> RulesDiagnostic {
        if let t = peek { return error(at: t, message, hint: hint) }
        return RulesDiagnostic(
            file: file, line: lineNumber, column: line.count + 1, length: 1, message: message,
            hint: hint, sourceLine: line)
    }

    mutating func expectWord(_ what: String, hint: String? = nil) throws(RulesDiagnostic) -> (
        name: String, token: RuleToken
    ) {
        guard let t = peek, case .word(let w) = t.kind else { throw errorAtCurrent("expected \(what)", hint: hint) }
        advance()
        return (w, t)
    }

    mutating func expectSeverity() throws(RulesDiagnostic) -> Severity {
        let names = Severity.allCases.map(\.name)
        guard let t = peek, case .word(let w) = t.kind else {
            throw errorAtCurrent("expected a severity", hint: names.joined(separator: ", "))
        }
        guard let s = Severity(name: w) else {
            throw error(
                at: t, "unknown severity '\(w)'",
                hint: nearest(w, in: names).map { "did you mean '\($0)'?" } ?? names.joined(separator: ", "))
        }
        advance()
        return s
    }

    mutating func expectParameterValue(_ name: String) throws(RulesDiagnostic) -> Int {
        guard let t = peek, case .word(let w) = t.kind else {
            throw errorAtCurrent("\(name) needs a value", hint: "a whole number, or yes / no")
        }
        advance()
        switch w {
        case "yes", "true", "on": return 1
        case "no", "false", "off": return 0
        default:
            guard let v = Int(w), v >= 0, v <= 36_500 else {
                throw error(at: t, "\(name) takes a whole number from 0 to 36500 (or yes / no), not '\(w)'")
            }
            return v
        }
    }

    // MARK: conditions

    mutating func parseCondition() throws(RulesDiagnostic) -> Condition {
        var lhs = try parseAll()
        while let t = peek, t.isWord("or") {
            advance()
            lhs = .any(lhs, try parseAll())
        }
        return lhs
    }

    mutating func parseAll() throws(RulesDiagnostic) -> Condition {
        var lhs = try parseNot()
        while let t = peek, t.isWord("and") {
            advance()
            lhs = .all(lhs, try parseNot())
        }
        return lhs
    }

    mutating func parseNot() throws(RulesDiagnostic) -> Condition {
        if let t = peek, t.isWord("not") {
            depth += 1
            guard depth <= TokenCursor.maxDepth else {
                throw error(at: t, "conditions nested deeper than \(TokenCursor.maxDepth)")
            }
            advance()
            let inner = Condition.not(try parseNot())
            depth -= 1
            return inner
        }
        return try parsePrimary()
    }

    /// Nesting (parentheses and `not`) and comparisons per condition are capped: a rules file
    /// is input too, and a deep tree would exhaust the stack when it is built or freed.
    static let maxDepth = 32
    static let maxComparisons = 256
    private var depth = 0
    private var comparisons = 0

    mutating func parsePrimary() throws(RulesDiagnostic) -> Condition {
        guard let t = peek else { throw errorAtCurrent("the condition ends too early", hint: "e.g. order.amount > 50") }
        if t.isSymbol("(") {
            depth += 1
            guard depth <= TokenCursor.maxDepth else {
                throw error(at: t, "conditions nested deeper than \(TokenCursor.maxDepth)")
            }
            advance()
            let inner = try parseCondition()
            guard let close = peek, close.isSymbol(")") else {
                throw errorAtCurrent("expected ')'", hint: "every ( needs a )")
            }
            advance()
            depth -= 1
            return inner
        }
        guard case .word(let name) = t.kind else {
            throw error(
                at: t, "expected a field name, not '\(t.text)'", hint: "e.g. order.amount or receipt.environment")
        }
        comparisons += 1
        guard comparisons <= TokenCursor.maxComparisons else {
            throw error(
                at: t, "more than \(TokenCursor.maxComparisons) comparisons in one condition",
                hint: "split it into several rules")
        }
        guard let field = ConditionField(rawValue: name) else {
            let known = ConditionField.allCases.map(\.rawValue)
            throw error(
                at: t, "unknown field '\(name)'",
                hint: nearest(name, in: known).map { "did you mean '\($0)'?" }
                    ?? "fields: \(known.joined(separator: ", "))")
        }
        advance()
        guard let op = peek else {
            throw errorAtCurrent(
                "expected a comparison after \(name)", hint: "=, !=, <, <=, >, >=, in [...], is null, contains")
        }
        switch op.kind {
        case .symbol(let s) where Condition.Comparison(rawValue: s) != nil:
            advance()
            guard let cmp = Condition.Comparison(rawValue: s) else { throw error(at: op, "unknown comparison") }
            if field.kind == .text, cmp != .equal, cmp != .notEqual {
                throw error(
                    at: op, "\(name) is text: compare it with = or !=",
                    hint: "or use contains, starts_with, ends_with, in [...]")
            }
            return .compare(field, cmp, try literal(for: field))
        case .word("in"):
            advance()
            guard let open = peek, open.isSymbol("[") else {
                throw errorAtCurrent("expected '[' after in", hint: "in [\"a\", \"b\"]")
            }
            advance()
            var values: [FieldValue] = []
            while true {
                values.append(try literal(for: field))
                guard let sep = peek else { throw errorAtCurrent("expected ',' or ']'") }
                advance()
                if sep.isSymbol("]") { break }
                guard sep.isSymbol(",") else { throw error(at: sep, "expected ',' or ']'") }
            }
            return .oneOf(field, values)
        case .word("is"):
            advance()
            var wantNull = true
            if let n = peek, n.isWord("not") {
                advance()
                wantNull = false
            }
            guard let null = peek, null.isWord("null") else {
                throw errorAtCurrent("expected 'null'", hint: "is null, is not null")
            }
            advance()
            return .isNull(field, wantNull)
        case .word(let w) where Condition.TextTest(rawValue: w) != nil:
            advance()
            guard field.kind == .text else { throw error(at: op, "\(w) works on text fields; \(name) is not text") }
            guard let v = peek, case .string(let s) = v.kind else { throw errorAtCurrent("\(w) needs a quoted string") }
            advance()
            guard let test = Condition.TextTest(rawValue: w) else { throw error(at: op, "unknown test") }
            return .text(field, test, s)
        default:
            throw error(
                at: op, "expected a comparison, not '\(op.text)'",
                hint: "=, !=, <, <=, >, >=, in [...], is null, contains, starts_with, ends_with")
        }
    }

    /// A literal of the field's type: a quoted string for text, a number, a quoted time.
    mutating func literal(for field: ConditionField) throws(RulesDiagnostic) -> FieldValue {
        guard let t = peek else { throw errorAtCurrent("expected a value") }
        advance()
        switch (field.kind, t.kind) {
        case (.text, .string(let s)): return .text(s)
        case (.text, .word(let w)):
            throw error(at: t, "\(field.rawValue) is text: quote the value", hint: "\(field.rawValue) = \"\(w)\"")
        case (.number, .word(let w)):
            guard let d = Double(w), d.isFinite else { throw error(at: t, "'\(w)' is not a number") }
            return .number(d)
        case (.number, .string(let s)):
            throw error(
                at: t, "\(field.rawValue) is a number: write it without quotes", hint: "e.g. \(field.rawValue) > \(s)")
        case (.time, .string(let s)):
            if let ts = Timestamp.parse(s) { return .time(ts) }
            if let day = Timestamp.parseDay(s) { return .time(day.lowerBound) }
            throw error(at: t, "\"\(s)\" is not a date or time", hint: "\"2024-03-01\" or \"2024-03-01T12:00:00Z\"")
        case (.time, _):
            throw error(at: t, "\(field.rawValue) is a time: write a quoted date", hint: "\"2024-03-01\"")
        default:
            throw error(at: t, "expected a value, not '\(t.text)'")
        }
    }
}
