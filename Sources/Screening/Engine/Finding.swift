import IAPBasics
import JSONText

/// Something a rule found about an order (or a dump record): which rule, how bad, why in
/// words, and the evidence — expected against actual, plus the rule's own keys.
public struct Finding: Sendable, Equatable {
    public var orderID: String?
    public var userID: String?
    /// A named rule id or a custom rule's name.
    public var rule: String
    public var severity: Severity
    public var message: String
    public var evidence: Evidence
    /// `reviewer` when a listed App Review account's window covers it.
    public var exempted: String?
    /// What the ledger knows of it; nil without a ledger.
    public var review: ReviewMark?

    public init(
        orderID: String?, userID: String?, rule: String, severity: Severity, message: String,
        evidence: Evidence, exempted: String? = nil
    ) {
        self.orderID = orderID
        self.userID = userID
        self.rule = rule
        self.severity = severity
        self.message = message
        self.evidence = evidence
        self.exempted = exempted
    }
}

public struct Evidence: Sendable, Equatable {
    public var expected: String?
    public var actual: String?
    /// Rule-specific keys in a stable order (`original_order_id`, `transaction_id`, `file`, …).
    public var extra: [(key: String, value: JSONValue)]

    public init(expected: String? = nil, actual: String? = nil, extra: [(key: String, value: JSONValue)] = []) {
        self.expected = expected
        self.actual = actual
        self.extra = extra
    }

    public var json: JSONObject {
        JSONObject([("expected", .string(orNull: expected)), ("actual", .string(orNull: actual))] + extra)
    }

    /// `json` written straight into `out`, without building it.
    public func writeJSON(to out: inout [UInt8], with w: JSONWriter = JSONWriter()) {
        JSONWriter.raw(#"{"expected":"#, to: &out)
        w.write(orNull: expected, to: &out)
        JSONWriter.raw(#","actual":"#, to: &out)
        w.write(orNull: actual, to: &out)
        for (key, value) in extra {
            out.append(0x2C)
            w.writeString(key, to: &out)
            out.append(0x3A)
            w.write(value, to: &out)
        }
        out.append(0x7D)
    }

    public static func == (a: Evidence, b: Evidence) -> Bool { a.json == b.json }

    /// Where a dump record stands: `file` and `line`, or `file` and `row` (XML).
    public static func location(_ l: SourceLocation) -> [(key: String, value: JSONValue)] {
        switch l.position {
        case .line(let n): return [("file", .string(l.file)), ("line", .integer(n))]
        case .row(let n): return [("file", .string(l.file)), ("row", .integer(n))]
        }
    }
}

/// A finding's standing in the ledger: first reported tonight, reported by an earlier
/// completed run, or decided by a reviewer.
public struct ReviewMark: Sendable, Equatable {
    public enum Status: String, Sendable {
        case new, seen, reviewed
    }

    public var status: Status
    public var verdict: String?
    public var note: String?
    public var by: String?
    public var at: String?

    public init(status: Status, verdict: String? = nil, note: String? = nil, by: String? = nil, at: String? = nil) {
        self.status = status
        self.verdict = verdict
        self.note = note
        self.by = by
        self.at = at
    }

    /// `json` written straight into `out`, without building it.
    public func writeJSON(to out: inout [UInt8], with w: JSONWriter = JSONWriter()) {
        JSONWriter.raw(#"{"status":"#, to: &out)
        w.writeString(status.rawValue, to: &out)
        JSONWriter.raw(#","verdict":"#, to: &out)
        w.write(orNull: verdict, to: &out)
        JSONWriter.raw(#","note":"#, to: &out)
        w.write(orNull: note, to: &out)
        JSONWriter.raw(#","by":"#, to: &out)
        w.write(orNull: by, to: &out)
        JSONWriter.raw(#","at":"#, to: &out)
        w.write(orNull: at, to: &out)
        out.append(0x7D)
    }

    public var json: JSONValue {
        .object(
            JSONObject([
                ("status", .string(status.rawValue)), ("verdict", .string(orNull: verdict)),
                ("note", .string(orNull: note)), ("by", .string(orNull: by)), ("at", .string(orNull: at)),
            ]))
    }
}

extension Finding {
    /// Counts towards `flagged`, `--fail-on` and money at risk: not exempted, not reviewed legit.
    public var counts: Bool { exempted == nil && review?.verdict != "legit" }

    /// One line of findings.jsonl.
    public var json: JSONObject {
        JSONObject([
            ("order_id", .string(orNull: orderID)), ("user_id", .string(orNull: userID)),
            ("rule", .string(rule)), ("severity", .string(severity.name)), ("message", .string(message)),
            ("evidence", .object(evidence.json)), ("exempted", .string(orNull: exempted)),
            ("review", review?.json ?? .null),
        ])
    }

    /// `json` written straight into `out` (a line of findings.jsonl, the line feed aside):
    /// the same bytes, without building the object first.
    public func writeJSON(to out: inout [UInt8], with w: JSONWriter = JSONWriter()) {
        JSONWriter.raw(#"{"order_id":"#, to: &out)
        w.write(orNull: orderID, to: &out)
        JSONWriter.raw(#","user_id":"#, to: &out)
        w.write(orNull: userID, to: &out)
        JSONWriter.raw(#","rule":"#, to: &out)
        w.writeString(rule, to: &out)
        JSONWriter.raw(#","severity":"#, to: &out)
        w.writeString(severity.name, to: &out)
        JSONWriter.raw(#","message":"#, to: &out)
        w.writeString(message, to: &out)
        JSONWriter.raw(#","evidence":"#, to: &out)
        evidence.writeJSON(to: &out, with: w)
        JSONWriter.raw(#","exempted":"#, to: &out)
        w.write(orNull: exempted, to: &out)
        JSONWriter.raw(#","review":"#, to: &out)
        if let review { review.writeJSON(to: &out, with: w) } else { JSONWriter.raw("null", to: &out) }
        out.append(0x7D)
    }
}

extension Finding {
    /// Reads back what `json` wrote (the review mark is not kept: the ledger supplies it).
    public init?(json o: JSONObject) {
        guard let rule = o["rule"]?.string, let severity = o["severity"]?.string.flatMap(Severity.init(name:)),
            let message = o["message"]?.string, let evidence = o["evidence"]?.object
        else { return nil }
        let extra = evidence.members.filter { $0.key != "expected" && $0.key != "actual" }
        self.init(
            orderID: o["order_id"]?.string, userID: o["user_id"]?.string, rule: rule, severity: severity,
            message: message,
            evidence: Evidence(
                expected: evidence["expected"]?.string, actual: evidence["actual"]?.string, extra: extra),
            exempted: o["exempted"]?.string)
    }
}
