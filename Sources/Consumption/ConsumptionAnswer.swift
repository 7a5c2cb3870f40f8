import JSONText

/// What we tell Apple of one request: the `ConsumptionRequest` body, or none when the user's
/// consent is not known to be yes, with `why` in words for every field.
public struct ConsumptionAnswer: Sendable, Equatable {
    public enum Status: String, Sendable {
        case answer
        case noConsent = "no-consent"
    }

    public enum DeliveryStatus: String, Sendable {
        case delivered = "DELIVERED"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    public enum RefundPreference: String, Sendable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        case grantProrated = "GRANT_PRORATED"
    }

    /// The body Apple reads; built so that Apple accepts it (see `ConsumptionDecider`).
    public struct Body: Sendable, Equatable {
        /// Always true: without the user's consent there is no body.
        public var customerConsented = true
        public var deliveryStatus: DeliveryStatus
        /// Milliunits, 0–100000; nil: left out.
        public var consumptionPercentage: Int32?
        public var refundPreference: RefundPreference?
        public var sampleContentProvided: Bool

        public var json: JSONObject {
            var o = JSONObject([
                ("customerConsented", .bool(customerConsented)),
                ("deliveryStatus", .string(deliveryStatus.rawValue)),
            ])
            if let consumptionPercentage {
                o.members.append(("consumptionPercentage", .integer(Int64(consumptionPercentage))))
            }
            if let refundPreference { o.members.append(("refundPreference", .string(refundPreference.rawValue))) }
            o.members.append(("sampleContentProvided", .bool(sampleContentProvided)))
            return o
        }
    }

    public var status: Status
    public var body: Body?
    public var why: [String]
}
