import HTTPMessages
import Ledger
import Screening

/// The queue's filter from a query string (`GET /queue`, `GET /api/v1/queue`): an empty
/// value is no filter (what an empty field of the page's form sends); anything else that
/// does not read is a 400 naming it.
public enum QueueFilterReading {
    static let maxLimit = 500
    static let longestText = 512

    struct Invalid: Error {
        var message: String
    }

    static func filter(_ query: NamedValues) throws(Invalid) -> QueueFilter {
        func given(_ name: String) throws(Invalid) -> String? {
            guard let v = query.first(name), !v.isEmpty else { return nil }
            guard v.count <= longestText else {
                throw Invalid(message: "\(name) is longer than \(longestText) characters")
            }
            return v
        }
        var f = QueueFilter()
        if let s = try given("status") {
            guard let status = QueueFilter.Status(rawValue: s) else {
                throw Invalid(message: "status must be open, claimed, decided or all")
            }
            f.status = status
        }
        f.rule = try given("rule")
        if let s = try given("severity") {
            guard let severity = Severity(name: s) else {
                throw Invalid(message: "severity must be info, low, medium, high or critical")
            }
            f.minimumSeverity = severity.rawValue
        }
        f.assignee = try given("assignee")
        f.query = try given("q")
        if let s = try given("limit") {
            guard let n = Int(s), (1...maxLimit).contains(n) else {
                throw Invalid(message: "limit must be a number from 1 to \(maxLimit)")
            }
            f.limit = n
        }
        if let s = try given("after") {
            guard let place = QueuePlace(cursor: s) else {
                throw Invalid(message: "after is not a cursor this desk gave")
            }
            f.after = place
        }
        return f
    }

    /// §7 time text or a day (what `since` may be, on the API and on `desk audit`).
    public static func isTimeText(_ s: String) -> Bool {
        s.count <= 40 && s.allSatisfy { $0.isASCII && ($0.isNumber || "-:TZ.".contains($0)) }
    }

    /// `since=` of the audit trail: §7 time text or a day, nothing else.
    static func since(_ query: NamedValues) throws(Invalid) -> String? {
        guard let s = query.first("since"), !s.isEmpty else { return nil }
        guard isTimeText(s) else {
            throw Invalid(message: "since must be a time as YYYY-MM-DDTHH:MM:SSZ")
        }
        return s
    }
}
