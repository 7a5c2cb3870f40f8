import Consumption
import IAPBasics
import JSONText
import Night
import Reporting
import Screening

/// A night's refund requests answered (docs/consumption.md): consumption.jsonl's lines, one
/// per request not past its deadline at `now`, in the logs' order, and the counts summary.json
/// and the metrics give. What `consumption` and `screen --store-events` both write.
struct RequestAnswers {
    /// consumption.jsonl, whole.
    var lines: [UInt8] = []
    var counts = ConsumptionCounts()
    var open: [RequestFigures.OpenRequest] = []

    /// The answers to `requests` (believed, with what is known of each) at `now`; nil when the
    /// logs held no request, believed or not. `invalid`: the distinct ones not believed.
    static func make(
        _ requests: [(request: ConsumptionRequest, facts: ConsumptionFacts)], invalid: Int,
        settings: ConsumptionSettings, now: Timestamp
    ) -> RequestAnswers? {
        guard !requests.isEmpty || invalid > 0 else { return nil }
        let decider = ConsumptionDecider(settings: settings)
        var out = RequestAnswers()
        out.counts.read = requests.count + invalid
        out.counts.invalid = invalid
        let writer = JSONWriter()
        for (request, facts) in requests {
            guard request.answerBy.millis > now.millis else {
                out.counts.late += 1
                continue
            }
            let answer = decider.answer(request, facts)
            out.counts.add(answer)
            writer.write(.object(ConsumptionLine.json(request, facts, answer)), to: &out.lines)
            out.lines.append(0x0A)
            out.open.append(
                RequestFigures.OpenRequest(
                    answerBy: request.answerBy, transactionID: request.transactionID, productID: request.productID,
                    orderID: facts.order?.orderID, userID: facts.userID, reason: request.reason,
                    status: answer.status.rawValue, deliveryStatus: answer.body?.deliveryStatus.rawValue,
                    consumptionPercentage: answer.body?.consumptionPercentage,
                    refundPreference: answer.body?.refundPreference?.rawValue))
        }
        return out
    }

    static let nowOption = OptionSpec(
        "--now", .one, valueName: "TIME",
        help: "The time refund requests' 12-hour deadlines are judged at (default: now; ISO 8601 or epoch).")

    /// `--now`, else `otherwise`; nil after saying that it is not a time.
    static func now(_ args: ParsedArguments, command: CommandSpec, io: Console, otherwise: Timestamp) -> Timestamp? {
        guard let text = args.one("--now") else { return otherwise }
        guard let t = Timestamp.parse(text) else {
            io.usageError(
                command: command, "--now takes a time such as 2024-03-01T12:00:00Z or epoch seconds, not '\(text)'")
            return nil
        }
        return t
    }

    var figures: RequestFigures { RequestFigures(states: counts.states, open: open) }

    /// The one-line summary on stderr.
    var text: String {
        let c = counts
        return "\(c.read) refund request\(c.read == 1 ? "" : "s") read: \(c.answered) answered (\(c.decline) decline, "
            + "\(c.grantFull) grant full, \(c.grantProrated) grant prorated, \(c.noPreference) no preference), "
            + "\(c.noConsent) without consent, \(c.late) late, \(c.invalid) not believed"
    }
}
