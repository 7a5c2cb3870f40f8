import IAPBasics
import JSONText
import Screening

/// What the night's claims decided of one order that its own row and receipt cannot say, as
/// the explain index keeps it (only for orders where it is not what screening assumes): the
/// receipt entry it got and who took it first, what the custom rules' night-wide fields held
/// for it, the findings the store events gave it, and its refund requests' answers.
package struct OrderFacts: Sendable, Equatable {
    package var orderID: String
    /// nil: what screening assumes before the claims, its receipt's first candidate (or none).
    package var selection: Selection?
    /// The first taker of a replayed transaction is in tonight's dumps.
    package var originalTonight = false
    /// `user.orders`, when a custom rule asks it.
    package var ordersOfUser: Int?
    /// `user.refunds` beside 0, when the night's refunds were judged.
    package var refundsOfUser: Int?
    /// `event.reason`.
    package var eventReason: String?
    package var eventFindings: [Finding] = []
    package var requests: [RequestWords] = []

    package init(orderID: String) {
        self.orderID = orderID
    }

    /// Nothing beside what screening assumes: the index keeps no facts for the order.
    var isEmpty: Bool { self == OrderFacts(orderID: orderID) }

    // MARK: JSON, as the index keeps it

    var json: JSONObject {
        var m: [(key: String, value: JSONValue)] = [("order_id", .string(orderID))]
        if let selection { m.append(("selection", .object(Self.json(selection)))) }
        if originalTonight { m.append(("original_tonight", .bool(true))) }
        if let ordersOfUser { m.append(("orders_of_user", JSONValue.integer(ordersOfUser))) }
        if let refundsOfUser { m.append(("refunds_of_user", JSONValue.integer(refundsOfUser))) }
        if let eventReason { m.append(("event_reason", .string(eventReason))) }
        if !eventFindings.isEmpty { m.append(("event_findings", .array(eventFindings.map { .object($0.json) }))) }
        if !requests.isEmpty {
            m.append(
                (
                    "requests",
                    .array(
                        requests.map { r in
                            .object(
                                JSONObject([
                                    ("head", .string(r.head)), ("answer_by", Self.json(r.answerBy)),
                                    ("answer", .string(r.answer)), ("why", .array(r.why.map(JSONValue.string))),
                                ]))
                        })
                ))
        }
        return JSONObject(m)
    }

    /// Reads back what `json` wrote; nil for anything else (the index is input like any other).
    init?(json o: JSONObject) {
        guard let id = o["order_id"]?.string else { return nil }
        orderID = id
        if let s = o["selection"] {
            guard let sel = s.object.flatMap(Self.selection) else { return nil }
            selection = sel
        }
        originalTonight = o["original_tonight"]?.bool ?? false
        if let v = o["orders_of_user"] {
            guard let n = v.int64.flatMap({ Int(exactly: $0) }) else { return nil }
            ordersOfUser = n
        }
        if let v = o["refunds_of_user"] {
            guard let n = v.int64.flatMap({ Int(exactly: $0) }) else { return nil }
            refundsOfUser = n
        }
        eventReason = o["event_reason"]?.string
        for f in o["event_findings"]?.array ?? [] {
            guard let finding = f.object.flatMap(Finding.init(json:)) else { return nil }
            eventFindings.append(finding)
        }
        for r in o["requests"]?.array ?? [] {
            guard let r = r.object, let head = r["head"]?.string, let at = r["answer_by"].flatMap(Self.timestamp),
                let answer = r["answer"]?.string, let why = r["why"]?.array
            else { return nil }
            let lines = why.compactMap(\.string)
            guard lines.count == why.count else { return nil }
            requests.append(RequestWords(head: head, answerBy: at, answer: answer, why: lines))
        }
    }

    private static func json(_ s: Selection) -> JSONObject {
        switch s {
        case .none: return JSONObject([("none", .bool(true))])
        case .picked(let i): return JSONObject([("picked", JSONValue.integer(i))])
        case .replayOf(let i, let original, let key):
            return JSONObject([
                ("replay", JSONValue.integer(i)), ("original", .object(json(original))), ("key", .string(key)),
            ])
        case .restore(let i, let original):
            return JSONObject([("restore", JSONValue.integer(i)), ("original", .object(json(original)))])
        }
    }

    private static func selection(_ o: JSONObject) -> Selection? {
        func index(_ key: String) -> Int? { o[key]?.int64.flatMap { Int(exactly: $0) }.flatMap { $0 >= 0 ? $0 : nil } }
        if o["none"]?.bool == true { return Selection.none }
        if let i = index("picked") { return .picked(i) }
        guard let original = o["original"]?.object.flatMap(claim) else { return nil }
        if let i = index("replay"), let key = o["key"]?.string {
            return .replayOf(candidate: i, original: original, key: key)
        }
        if let i = index("restore") { return .restore(candidate: i, original: original) }
        return nil
    }

    private static func json(_ c: Claim) -> JSONObject {
        JSONObject([
            ("order_id", .string(c.orderID)), ("user_id", .string(c.userID)), ("created_at", json(c.createdAt)),
        ])
    }

    private static func claim(_ o: JSONObject) -> Claim? {
        guard let order = o["order_id"]?.string, let user = o["user_id"]?.string,
            let at = o["created_at"].flatMap(timestamp)
        else { return nil }
        return Claim(orderID: order, userID: user, createdAt: at)
    }

    /// A time with whether it prints its milliseconds: `[millis, true|false]`.
    private static func json(_ t: Timestamp) -> JSONValue {
        .array([JSONValue.integer(t.millis), .bool(t.hasMilliseconds)])
    }

    private static func timestamp(_ v: JSONValue) -> Timestamp? {
        guard let a = v.array, a.count == 2, let ms = a[0].int64, let fraction = a[1].bool else { return nil }
        return Timestamp(millis: ms, hasMilliseconds: fraction)
    }
}
