import IAPBasics
import JSONText

/// The refund requests a run answered (§13, docs/consumption.md), as summary.json's
/// `consumption_requests`, the metric `iapscreen_consumption_requests{state}` and
/// report.html's open requests show them.
public struct RequestFigures: Sendable {
    /// Every state with its count (`read`, `answered`, `no_consent`, `late`, `invalid`,
    /// `decline`, `grant_full`, `grant_prorated`, `no_preference`), in that order.
    public var states: [(name: String, count: Int)]
    /// The requests listed in consumption.jsonl (not past their deadline), in its order.
    public var open: [OpenRequest]

    /// One request still open, with the answer we give.
    public struct OpenRequest: Sendable {
        public var answerBy: Timestamp
        public var transactionID: String
        public var productID: String?
        public var orderID: String?
        public var userID: String?
        public var reason: String?
        /// `answer` or `no-consent`.
        public var status: String
        public var deliveryStatus: String?
        /// Milliunits (0-100000).
        public var consumptionPercentage: Int32?
        public var refundPreference: String?

        public init(
            answerBy: Timestamp, transactionID: String, productID: String?, orderID: String?, userID: String?,
            reason: String?, status: String, deliveryStatus: String?, consumptionPercentage: Int32?,
            refundPreference: String?
        ) {
            self.answerBy = answerBy
            self.transactionID = transactionID
            self.productID = productID
            self.orderID = orderID
            self.userID = userID
            self.reason = reason
            self.status = status
            self.deliveryStatus = deliveryStatus
            self.consumptionPercentage = consumptionPercentage
            self.refundPreference = refundPreference
        }
    }

    public init(states: [(name: String, count: Int)], open: [OpenRequest]) {
        self.states = states
        self.open = open
    }

    public var json: JSONObject { JSONObject(states.map { ($0.name, .integer(Int64($0.count))) }) }

    public func count(_ state: String) -> Int { states.first { $0.name == state }?.count ?? 0 }
}
