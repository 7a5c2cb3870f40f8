/// What `review` writes of the desk beside its verdict (`recordReview`), in SQL both backends
/// run (`SQLDialect`): the desk's verdicts of the order no run applied yet go (the review is
/// newer), the order's desk row takes the verdict, the audit trail a `review` entry.
enum ReviewOnDesk {
    /// The statements for `review` of `orderID`, which replaces `earlier`, each with its values.
    static func statements(orderID: String, _ review: Review, replacing earlier: Review?) -> [(
        sql: String, values: [DeskValue]
    )] {
        let by = review.by ?? ""
        return [
            ("DELETE FROM desk_verdicts WHERE order_id = ?1", [.text(orderID)]),
            ("UPDATE flagged_orders SET decided = 1 WHERE order_id = ?1", [.text(orderID)]),
            (
                """
                INSERT INTO desk_orders(order_id, version, changed_by, verdict, verdict_by, verdict_at, verdict_note)
                VALUES (?1, 1, ?2, ?3, ?2, ?4, ?5)
                ON CONFLICT(order_id) DO UPDATE SET version = desk_orders.version + 1, changed_by = excluded.changed_by,
                    verdict = excluded.verdict, verdict_by = excluded.verdict_by, verdict_at = excluded.verdict_at,
                    verdict_note = excluded.verdict_note
                """,
                [.text(orderID), .text(by), .text(review.verdict), .text(review.at), .text(review.note)]
            ),
            (
                #"INSERT INTO desk_audit(at, "user", action, order_id, detail) VALUES (?1, ?2, 'review', ?3, ?4)"#,
                [
                    .text(review.at), .text(by), .text(orderID),
                    .text("\(review.verdict), replacing \(earlier?.verdict ?? "none")"),
                ]
            ),
        ]
    }
}
