import DumpFormats
import IAPBasics
import ReceiptFormats
import Screening

/// Decides the answer to one refund request from what is known of its transaction
/// (docs/consumption.md), so that Apple accepts every body: no percentage but 0 when
/// undelivered, none ever for an auto-renewable subscription, `GRANT_PRORATED` only with a
/// percentage strictly between 0 and 100 %.
public struct ConsumptionDecider: Sendable {
    public let settings: ConsumptionSettings

    public init(settings: ConsumptionSettings) {
        self.settings = settings
    }

    public func answer(_ request: ConsumptionRequest, _ facts: ConsumptionFacts) -> ConsumptionAnswer {
        var why: [String] = []
        why.append(orderWords(request, facts))
        guard facts.consent == .yes else {
            why.append(consentWords(facts) + ": no answer is sent (Apple takes only customerConsented true)")
            return ConsumptionAnswer(status: .noConsent, body: nil, why: why)
        }
        why.append("customerConsented true: " + consentWords(facts))
        let delivered = facts.order.map { $0.status == .credited } ?? false
        let delivery: ConsumptionAnswer.DeliveryStatus = delivered ? .delivered : .undeliveredOther
        why.append("deliveryStatus \(delivery.rawValue): " + deliveryWords(facts))
        let (percentage, percentageWhy) = consumption(request, facts, delivered: delivered)
        why.append(percentageWhy)
        let (preference, preferenceWhy) = refundPreference(facts, delivered: delivered, percentage: percentage)
        why.append(preferenceWhy)
        let sample = facts.order?.sampleContent ?? false
        why.append(
            "sampleContentProvided \(sample): "
                + (facts.order == nil
                    ? "no order, so no catalog item says a sample was offered"
                    : "the catalog's sample_content for the order's item is \(sample ? "yes" : "no")"))
        let body = ConsumptionAnswer.Body(
            deliveryStatus: delivery, consumptionPercentage: percentage, refundPreference: preference,
            sampleContentProvided: sample)
        return ConsumptionAnswer(status: .answer, body: body, why: why)
    }

    private func orderWords(_ request: ConsumptionRequest, _ facts: ConsumptionFacts) -> String {
        guard let o = facts.order else {
            return "no order took transaction \(request.transactionID)"
                + (facts.userID.map { ", user \($0) from \(facts.userSource ?? "the account token")" } ?? "")
        }
        return "order \(o.orderID) of user \(o.userID) took transaction \(request.transactionID) first (\(o.source))"
    }

    private func consentWords(_ facts: ConsumptionFacts) -> String {
        guard let user = facts.userID else { return "no user is known, so no consent" }
        guard let consent = facts.consent else { return "user \(user) never said whether they consent" }
        return "user \(user)'s latest consent is \(consent.rawValue) (\(facts.consentSource ?? "the dumps"))"
    }

    private func deliveryWords(_ facts: ConsumptionFacts) -> String {
        guard let o = facts.order else { return "no order took the transaction: the customer paid and got nothing" }
        return o.status == .credited
            ? "order \(o.orderID) is credited"
            : "order \(o.orderID) is \(o.status.rawValue), not credited: the customer paid and got nothing"
    }

    /// The product type Apple signed, else the catalog's.
    private func productType(_ request: ConsumptionRequest, _ facts: ConsumptionFacts) -> ProductType? {
        request.productType ?? facts.order?.catalogType
    }

    private func consumption(_ request: ConsumptionRequest, _ facts: ConsumptionFacts, delivered: Bool) -> (
        Int32?, String
    ) {
        let type = productType(request, facts)
        if type == .autoRenewable {
            return (nil, "consumptionPercentage left out: Apple works it out for an auto-renewable subscription")
        }
        guard delivered, let order = facts.order else {
            return (0, "consumptionPercentage 0: nothing was delivered")
        }
        if let consumed = order.consumed {
            return (
                consumed.milliunits,
                "consumptionPercentage \(consumed.milliunits): the order's consumed is \(consumed.percentText)"
            )
        }
        guard type == .nonRenewing else {
            return (nil, "consumptionPercentage left out: the dump does not say how much of it is used")
        }
        guard let start = order.purchasedAt else {
            return (nil, "consumptionPercentage left out: the subscription's purchase time is not known")
        }
        let end: Timestamp
        let source: String
        if let expiry = request.expiresDate ?? order.receiptExpiry {
            end = expiry
            source = "to its expiry \(expiry.iso8601)"
        } else if let days = order.periodDays {
            end = Timestamp(clampingMillis: start.millis &+ Int64(days) * 86_400_000, hasMilliseconds: false)
            source = "for the catalog's period_days \(days)"
        } else {
            return (
                nil,
                "consumptionPercentage left out: the subscription's period is not known (no expiry, no period_days)"
            )
        }
        let length = end.millis - start.millis
        guard length > 0 else {
            return (nil, "consumptionPercentage left out: the subscription's period ends before it starts")
        }
        let elapsed = min(max(request.requestedAt.millis - start.millis, 0), length)
        let share = Int32((elapsed * Int64(ConsumedShare.whole) + length / 2) / length)
        let shown = ConsumedShare(milliunits: share)?.percentText ?? "\(share)"
        return (
            share,
            "consumptionPercentage \(share): \(shown) of the period from \(start.iso8601) \(source) had passed at the request"
        )
    }

    private func refundPreference(_ facts: ConsumptionFacts, delivered: Bool, percentage: Int32?) -> (
        ConsumptionAnswer.RefundPreference?, String
    ) {
        if !delivered { return (.grantFull, "refundPreference GRANT_FULL: the customer is owed what they paid for") }
        if facts.verdict == "fraud" {
            return (.decline, "refundPreference DECLINE: a reviewer marked order \(facts.order?.orderID ?? "") fraud")
        }
        let refunds = facts.refunds
        if refunds >= settings.declineAfterRefunds {
            return (
                .decline,
                "refundPreference DECLINE: the user has had \(refunds) refund(s), at least decline_after_refunds \(settings.declineAfterRefunds)"
            )
        }
        let threshold = Int32(settings.declineWhenConsumed) * 1000
        if let percentage, percentage >= threshold {
            return (
                .decline,
                "refundPreference DECLINE: \(percentage) milliunits used, at least decline_when_consumed \(settings.declineWhenConsumed)%"
            )
        }
        if settings.prorate, let percentage, percentage > 0, percentage < ConsumedShare.whole {
            return (.grantProrated, "refundPreference GRANT_PRORATED: partly used, and prorate is yes")
        }
        let rest =
            settings.prorate
            ? "no refunds or use that decide it" : "under both thresholds, and prorate is no"
        return (nil, "refundPreference left out: \(rest) (\(refunds) refund(s))")
    }
}
