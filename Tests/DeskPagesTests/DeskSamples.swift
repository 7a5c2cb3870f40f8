import DeskPages
import JSONText
import Ledger

/// Data for the pages: hostile text in every field people or dumps fill, and a plausible
/// night for looking at the pages.
enum DeskSamples {
    static let script = "<script>alert(1)</script>"
    static let img = "\"><img src=x onerror=alert(1)>"
    static let js = "javascript:alert(1)"
    /// Every hostile piece at once, with a quote, an ampersand and a line break.
    static let evil = script + img + js + "'&\nline two"
    static let evilID = js + "/../x?y=1#z\"'" + script + "&"

    static let now: Int64 = 1_709_290_800_000  // 2024-03-01T11:00:00Z

    static func context(_ role: DeskRole, user: String = "ann") -> DeskPageContext {
        DeskPageContext(user: user, role: role, csrf: "CSRF-TOKEN-1234", now: now)
    }

    static func hostileOrder(claimedBy: String? = evil, verdict: String? = evil) -> QueueOrder {
        QueueOrder(
            flagged: FlaggedOrderSummary(
                orderID: evilID, userID: evil, platform: evil, productID: evil, amount: evil, currency: evil,
                createdAt: evil, severity: 4, rules: [evil, "replayed-transaction"], firstFlaggedAt: evil,
                lastFlaggedAt: evil + "2"),
            claimedBy: claimedBy, claimedUntil: claimedBy == nil ? nil : now + 20 * 60_000, verdict: verdict,
            verdictBy: verdict == nil ? nil : evil)
    }

    static var hostileFinding: String {
        let e = jsonString(evil)
        return #"{"order_id":"# + jsonString(evilID) + #","user_id":"# + e + #","rule":"# + e
            + #","severity":"critical","message":"# + e + #","evidence":{"expected":"# + e + #","actual":"# + e + ","
            + e + ":{" + e + ":[" + e + #",1,true,null]}},"exempted":"# + e + #","review":null,"#
            + e + ":" + e + "}"
    }

    static func hostileDossier(claimedBy: String? = evil, version: Int64 = 7) -> OrderDossier {
        OrderDossier(
            order: hostileOrder(claimedBy: claimedBy),
            findings: [hostileFinding, evil],
            receipt: "[[" + jsonString(evil) + "," + jsonString(evil) + "],[\"bundle id\"," + jsonString(js) + "]]",
            history: [(run: 3, at: evil, rules: [evil])],
            transactions: [
                TransactionTaker(key: evil, takenBy: evilID, takenAt: evil, alsoCreditedTo: [evilID, evil])
            ],
            storeEvents: [(type: evil, at: evil, reason: evil)],
            user: UserFacts(orders: [evilID, evil], refunds: 2, consent: false),
            verdict: DeskVerdict(verdict: evil, by: evil, at: evil, note: evil),
            notes: [DeskNote(by: evil, at: evil, text: evil)],
            version: version)
    }

    static var hostileAudit: [AuditEntry] {
        [
            AuditEntry(at: evil, user: evil, action: .loginFailed, orderID: nil, detail: evil),
            AuditEntry(at: evil, user: evil, action: .verdict, orderID: evilID, detail: evil),
        ]
    }

    /// `s` as a JSON string literal.
    static func jsonString(_ s: String) -> String {
        JSONWriter().string(.string(s))
    }
}
