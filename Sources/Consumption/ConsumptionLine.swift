import IAPBasics
import JSONText

/// One line of consumption.jsonl (docs/consumption.md): the request, who it concerns, and the
/// answer to `PUT` with why.
public enum ConsumptionLine {
    public static func json(
        _ request: ConsumptionRequest, _ facts: ConsumptionFacts, _ answer: ConsumptionAnswer
    ) -> JSONObject {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return JSONObject([
            ("notification_uuid", .string(request.notificationUUID)),
            ("transaction_id", .string(request.transactionID)),
            ("original_transaction_id", text(request.originalTransactionID)),
            ("product_id", text(request.productID)),
            ("type", text((request.productType ?? facts.order?.catalogType)?.name)),
            // Apple signs in milliseconds; a whole second prints as answer_by does.
            (
                "requested_at",
                .string(
                    Timestamp(
                        clampingMillis: request.requestedAt.millis,
                        hasMilliseconds: request.requestedAt.millis % 1000 != 0
                    ).iso8601)
            ),
            ("answer_by", .string(request.answerBy.iso8601)),
            ("reason", text(request.reason)),
            ("order_id", text(facts.order?.orderID)),
            ("user_id", text(facts.userID)),
            ("status", .string(answer.status.rawValue)),
            ("put", .string(request.path)),
            ("body", answer.body.map { .object($0.json) } ?? .null),
            ("why", .array(answer.why.map(JSONValue.string))),
        ])
    }
}

/// How the night's refund requests went, as summary.json's `consumption_requests` and the
/// metric `iapscreen_consumption_requests{state}` count them.
public struct ConsumptionCounts: Sendable, Equatable {
    /// Distinct requests read, believed or not.
    public var read = 0
    public var answered = 0, noConsent = 0, late = 0, invalid = 0
    /// The answered, by the refund preference they ask for.
    public var decline = 0, grantFull = 0, grantProrated = 0, noPreference = 0

    public init() {}

    /// A request answered (listed with a body, or `no-consent`).
    public mutating func add(_ answer: ConsumptionAnswer) {
        guard let body = answer.body else {
            noConsent += 1
            return
        }
        answered += 1
        switch body.refundPreference {
        case .decline?: decline += 1
        case .grantFull?: grantFull += 1
        case .grantProrated?: grantProrated += 1
        case nil: noPreference += 1
        }
    }

    /// Every state with its count, in the order summary.json writes them.
    public var states: [(name: String, count: Int)] {
        [
            ("read", read), ("answered", answered), ("no_consent", noConsent), ("late", late), ("invalid", invalid),
            ("decline", decline), ("grant_full", grantFull), ("grant_prorated", grantProrated),
            ("no_preference", noPreference),
        ]
    }

    public var json: JSONObject { JSONObject(states.map { ($0.name, .integer(Int64($0.count))) }) }
}
