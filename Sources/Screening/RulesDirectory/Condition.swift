import IAPBasics

/// A custom rule's condition, as parsed from `if …`.
public indirect enum Condition: Sendable, Equatable {
    case all(Condition, Condition)
    case any(Condition, Condition)
    case not(Condition)
    case compare(ConditionField, Comparison, FieldValue)
    case oneOf(ConditionField, [FieldValue])
    case isNull(ConditionField, Bool)
    case text(ConditionField, TextTest, String)

    public enum Comparison: String, Sendable {
        case equal = "="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    public enum TextTest: String, Sendable, CaseIterable {
        case contains
        case startsWith = "starts_with"
        case endsWith = "ends_with"
    }

    /// Evaluates with `lookup` giving each field's value for one order.
    public func holds(_ lookup: (ConditionField) -> FieldValue) -> Bool {
        switch self {
        case .all(let a, let b): return a.holds(lookup) && b.holds(lookup)
        case .any(let a, let b): return a.holds(lookup) || b.holds(lookup)
        case .not(let c): return !c.holds(lookup)
        case .isNull(let f, let wantNull): return (lookup(f) == .null) == wantNull
        case .oneOf(let f, let values):
            let v = lookup(f)
            return v != .null && values.contains { Condition.order(v, $0) == 0 }
        case .text(let f, let test, let needle):
            guard case .text(let s) = lookup(f) else { return false }
            switch test {
            case .contains: return s.contains(needle)
            case .startsWith: return s.hasPrefix(needle)
            case .endsWith: return s.hasSuffix(needle)
            }
        case .compare(let f, let op, let literal):
            let v = lookup(f)
            guard let o = Condition.order(v, literal) else { return false }
            switch op {
            case .equal: return o == 0
            case .notEqual: return o != 0
            case .less: return o < 0
            case .lessOrEqual: return o <= 0
            case .greater: return o > 0
            case .greaterOrEqual: return o >= 0
            }
        }
    }

    /// -1, 0, 1, or nil when the two cannot be compared (null, or different types).
    static func order(_ a: FieldValue, _ b: FieldValue) -> Int? {
        switch (a, b) {
        case (.text(let x), .text(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.number(let x), .number(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.time(let x), .time(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        default: return nil
        }
    }
}

extension Condition {
    /// The fields a condition names, in order of first appearance.
    public var fields: [ConditionField] {
        var out: [ConditionField] = []
        func walk(_ c: Condition) {
            switch c {
            case .all(let a, let b), .any(let a, let b):
                walk(a)
                walk(b)
            case .not(let x): walk(x)
            case .compare(let f, _, _), .oneOf(let f, _), .isNull(let f, _), .text(let f, _, _):
                if !out.contains(f) { out.append(f) }
            }
        }
        walk(self)
        return out
    }
}
