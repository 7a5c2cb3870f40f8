import Consumption
import IAPBasics
import JSONText
import Screening

/// What `explain` prints of the refund requests whose answer names the order
/// (docs/consumption.md): each with its deadline, the answer consumption.jsonl gives (or that it
/// is past its deadline at `now`), and why, field by field.
struct RequestLines {
    let lines: [String]

    /// nil when no request's answer names `orderID`.
    init?(
        _ requests: [(request: ConsumptionRequest, facts: ConsumptionFacts)], orderID: String,
        settings: ConsumptionSettings, now: Timestamp
    ) {
        let mine = requests.filter { $0.facts.order?.orderID == orderID }
        guard !mine.isEmpty else { return nil }
        let decider = ConsumptionDecider(settings: settings)
        var lines = ["refund requests of its transaction:"]
        for (request, facts) in mine {
            let head =
                "  \(request.notificationUUID) (\(request.reason ?? "no reason given")) about transaction "
                + "\(request.transactionID), answer by \(request.answerBy.iso8601)"
            guard request.answerBy.millis > now.millis else {
                lines.append(head + ": past its deadline at \(now.iso8601), not answered (late)")
                continue
            }
            let answer = decider.answer(request, facts)
            let body = answer.body.map { JSONWriter().string(.object($0.json)) } ?? "no body"
            lines.append(head + ": \(answer.status.rawValue), PUT \(request.path) \(body)")
            lines += answer.why.map { "    - " + $0 }
        }
        self.lines = lines
    }
}
