import Consumption
import IAPBasics
import JSONText
import Screening

/// What `explain` says of a store event that names a transaction, and the names by which an
/// order's receipt may name it (a claim key, a Google purchase token, an Apple transaction):
/// one wording whether the night was just read or the explain index kept the line.
package enum StoreEventWords {
    /// nil for an item that names no transaction (a line that is no event).
    package static func line(_ item: StoreEventNight.Item) -> (names: [String], line: String)? {
        switch item {
        case .refund(let r, let token, _):
            let what = r.kind == .refund ? "refund" : "reversal of a refund"
            let line =
                "  \(r.event) at \(r.at.iso8601) (\(r.saidWhere)): \(what)"
                + (r.reason.map { ", reason \($0)" } ?? "") + (r.source.map { ", asked by \($0)" } ?? "")
            return (token.map { $0 == r.key ? [r.key] : [r.key, $0] } ?? [r.key], line)
        case .invalid(let type, let transaction?, let location, let reason):
            return ([transaction], "  \(type) (\(location)): not believed: \(reason)")
        default:
            return nil
        }
    }

    /// The lines of the night's events that `names` (an order's claim keys and tokens) name,
    /// in the order the logs hold them.
    package static func lines(_ events: StoreEventNight, naming names: Set<String>) -> [String] {
        events.items.compactMap { item in
            line(item).flatMap { found in found.names.contains(where: names.contains) ? found.line : nil }
        }
    }
}

/// A refund request whose answer names an order, as `explain` words it: the answer is the
/// same whenever it is asked; whether it is past its deadline depends on `explain --now`.
package struct RequestWords: Sendable, Equatable {
    package var head: String
    package var answerBy: Timestamp
    /// `: status, PUT path body`, said after `head` while the request may be answered.
    package var answer: String
    package var why: [String]

    package init(head: String, answerBy: Timestamp, answer: String, why: [String]) {
        self.head = head
        self.answerBy = answerBy
        self.answer = answer
        self.why = why
    }

    package init(_ request: ConsumptionRequest, _ facts: ConsumptionFacts, decider: ConsumptionDecider) {
        head =
            "  \(request.notificationUUID) (\(request.reason ?? "no reason given")) about transaction "
            + "\(request.transactionID), answer by \(request.answerBy.iso8601)"
        answerBy = request.answerBy
        let a = decider.answer(request, facts)
        let body = a.body.map { JSONWriter().string(.object($0.json)) } ?? "no body"
        answer = ": \(a.status.rawValue), PUT \(request.path) \(body)"
        why = a.why
    }

    /// The requests of the night whose answer names `orderID`, in the order the logs hold them.
    package static func of(
        order orderID: String, in requests: [(request: ConsumptionRequest, facts: ConsumptionFacts)],
        settings: ConsumptionSettings
    ) -> [RequestWords] {
        let decider = ConsumptionDecider(settings: settings)
        return requests.filter { $0.facts.order?.orderID == orderID }.map {
            RequestWords($0.request, $0.facts, decider: decider)
        }
    }

    /// What `explain` prints of it at `now`.
    package func lines(at now: Timestamp) -> [String] {
        guard answerBy.millis > now.millis else {
            return [head + ": past its deadline at \(now.iso8601), not answered (late)"]
        }
        return [head + answer] + why.map { "    - " + $0 }
    }
}
