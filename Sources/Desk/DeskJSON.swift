import IAPBasics
import JSONText
import Ledger
import Screening

/// The API's JSON (CONTRACT §14): what the desk's records look like on the wire. Times as §7.
enum DeskJSON {
    static func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    static func time(_ ms: Int64?) -> JSONValue { ms.map { .string(DeskTime.text($0)) } ?? .null }
    static func number(_ n: Int64) -> JSONValue { .number(String(n)) }
    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members.map { (key: $0.0, value: $0.1) }))
    }

    static func severityName(_ rank: Int) -> String { Severity(rawValue: rank)?.name ?? String(rank) }

    static func order(_ o: QueueOrder) -> JSONValue {
        let f = o.flagged
        return object([
            ("order_id", .string(f.orderID)), ("user_id", text(f.userID)), ("platform", text(f.platform)),
            ("product_id", text(f.productID)), ("amount", text(f.amount)), ("currency", text(f.currency)),
            ("created_at", text(f.createdAt)), ("severity", .string(severityName(f.severity))),
            ("rules", .array(f.rules.map(JSONValue.string))), ("first_flagged_at", .string(f.firstFlaggedAt)),
            ("last_flagged_at", .string(f.lastFlaggedAt)), ("claimed_by", text(o.claimedBy)),
            ("claimed_until", time(o.claimedUntil)), ("verdict", text(o.verdict)), ("verdict_by", text(o.verdictBy)),
        ])
    }

    static func queue(_ page: QueuePage) -> JSONValue {
        object([
            ("orders", .array(page.orders.map(order))), ("total", number(Int64(page.total))),
            ("next", text(page.next?.cursor)),
        ])
    }

    /// A findings.jsonl line as the object it is; a line that no longer reads (never written
    /// by iapscreen) goes out as its text rather than being dropped.
    static func finding(_ line: String) -> JSONValue {
        (try? JSONParser.parse(Array(line.utf8), limits: .standard)) ?? .string(line)
    }

    static func dossier(_ d: OrderDossier) -> JSONValue {
        let receipt = d.receipt.flatMap { try? JSONParser.parse(Array($0.utf8), limits: .standard) } ?? .null
        return object([
            ("order", order(d.order)),
            ("findings", .array(d.findings.map(finding))),
            ("receipt", receipt),
            (
                "history",
                .array(
                    d.history.map {
                        object([
                            ("run", number($0.run)), ("at", .string($0.at)),
                            ("rules", .array($0.rules.map(JSONValue.string))),
                        ])
                    })
            ),
            (
                "transactions",
                .array(
                    d.transactions.map {
                        object([
                            ("key", .string($0.key)), ("taken_by", text($0.takenBy)), ("taken_at", text($0.takenAt)),
                            ("also_credited_to", .array($0.alsoCreditedTo.map(JSONValue.string))),
                        ])
                    })
            ),
            (
                "store_events",
                .array(
                    d.storeEvents.map {
                        object([("type", .string($0.type)), ("at", .string($0.at)), ("reason", text($0.reason))])
                    })
            ),
            (
                "user",
                object([
                    ("orders", .array(d.user.orders.map(JSONValue.string))), ("refunds", number(Int64(d.user.refunds))),
                    ("consent", d.user.consent.map(JSONValue.bool) ?? .null),
                ])
            ),
            ("claim", claim(d.order)),
            (
                "verdict",
                d.verdict.map {
                    object([
                        ("verdict", .string($0.verdict)), ("by", .string($0.by)), ("at", .string($0.at)),
                        ("note", text($0.note)),
                    ])
                } ?? .null
            ),
            (
                "notes",
                .array(
                    d.notes.map {
                        object([("by", .string($0.by)), ("at", .string($0.at)), ("text", .string($0.text))])
                    })
            ),
            ("version", number(d.version)),
        ])
    }

    static func claim(_ o: QueueOrder) -> JSONValue {
        guard let by = o.claimedBy else { return .null }
        return object([("claimed_by", .string(by)), ("claimed_until", time(o.claimedUntil))])
    }

    static func audit(_ entries: [AuditEntry]) -> JSONValue {
        object([("entries", .array(entries.map(entry)))])
    }

    static func entry(_ e: AuditEntry) -> JSONValue {
        object([
            ("at", .string(e.at)), ("user", .string(e.user)), ("action", .string(e.action.rawValue)),
            ("order_id", text(e.orderID)), ("detail", text(e.detail)),
        ])
    }

    static func error(_ message: String, _ extra: [(String, JSONValue)] = []) -> JSONValue {
        object([("error", .string(message))] + extra)
    }
}

extension AuditEntry {
    /// The entry as `desk audit` prints it and the API gives it: one JSON object.
    public var jsonLine: String { JSONWriter().string(DeskJSON.entry(self)) }
}
