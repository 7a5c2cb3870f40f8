import Ledger
import Testing

@testable import DeskPages

@Suite("The queue page")
struct QueuePageTests {
    static func order(_ id: String, severity: Int, claimedBy: String? = nil, verdict: String? = nil) -> QueueOrder {
        QueueOrder(
            flagged: FlaggedOrderSummary(
                orderID: id, userID: "user-1", platform: "ios", productID: "gems_100", amount: "4.99", currency: "USD",
                createdAt: "2024-02-28T10:00:00Z", severity: severity, rules: ["replayed-transaction", "revoked"],
                firstFlaggedAt: "2024-02-29T02:00:00Z", lastFlaggedAt: "2024-03-01T02:00:00Z"),
            claimedBy: claimedBy, claimedUntil: claimedBy == nil ? nil : DeskSamples.now + 30 * 60_000,
            verdict: verdict,
            verdictBy: verdict == nil ? nil : "ben")
    }

    static let filter = QueueFilter(
        status: .claimed, rule: "replayed-transaction", minimumSeverity: 3, assignee: "ann b", query: "u&1", limit: 25)

    static func render(_ role: DeskRole = .reviewer, next: QueuePlace? = nil) -> String {
        let page = QueuePage(
            orders: [order("ORD/1", severity: 4, claimedBy: "ann"), order("ORD-2", severity: 1, verdict: "legit")],
            total: 130, next: next)
        return DeskPages.queue(page, filter: filter, context: DeskSamples.context(role), message: nil)
    }

    @Test("the filter form is a GET to /queue showing the current values")
    func filters() {
        let html = Self.render()
        #expect(html.contains(#"<form id="filters" class="filters" method="get" action="/queue">"#))
        #expect(html.contains(#"<option value="claimed" selected>claimed</option>"#))
        #expect(html.contains(#"<option value="high" selected>high</option>"#))
        #expect(html.contains(#"name="rule" id="f-rule" value="replayed-transaction""#))
        #expect(html.contains(#"name="assignee" id="f-assignee" value="ann b""#))
        #expect(html.contains(#"name="q" id="q" value="u&amp;1""#))
        #expect(html.contains(#"name="limit" id="f-limit" min="1" max="500" value="25""#))
    }

    @Test("the counts: the filter's total and this page's rows")
    func counts() {
        #expect(Self.render().contains(#"<p id="counts" class="counts"><strong>130 orders</strong> · showing 2</p>"#))
    }

    @Test("each row carries its order id and one link to it, and a class for its severity")
    func rows() {
        let html = Self.render()
        PageChecks.inert(html)
        #expect(html.contains(#"<table id="queue" class="queue">"#))
        #expect(html.contains(#"<tr class="order-row sev-critical mine" data-order-id="ORD/1" data-severity="4">"#))
        #expect(html.contains(#"<a class="order-link ident" href="/orders/ORD%2F1">ORD/1</a>"#))
        #expect(html.contains(#"<tr class="order-row sev-low decided" data-order-id="ORD-2""#))
        #expect(html.contains(#"<span class="sev sev-critical">critical</span>"#))
        #expect(html.contains("4.99 USD"))
        #expect(html.contains(#"<span class="tag verdict-legit">legit</span>"#))
        #expect(html.contains(#"title="until 2024-03-01T11:30:00Z">30 min left</time>"#))
    }

    @Test("the more link carries the cursor and every filter")
    func more() throws {
        let next = QueuePlace(severity: 1, firstFlaggedAt: "2024-02-29T02:00:00Z", orderID: "ORD-2")
        let html = Self.render(next: next)
        let url = try #require(PageChecks.urls(html).first { $0.contains("after=") })
        #expect(
            url == "/queue?status=claimed&amp;rule=replayed-transaction&amp;severity=high&amp;assignee=ann%20b"
                + "&amp;q=u%261&amp;limit=25&amp;after=" + next.cursor)
        #expect(QueuePlace(cursor: next.cursor) == next)
        #expect(!Self.render().contains(#"id="more""#))
    }

    @Test("Next is a POST to /queue/next for reviewers and leads, absent for viewers")
    func next() {
        for role in DeskRole.allCases {
            let html = Self.render(role)
            let next = #"<form method="post" action="/queue/next" id="next-form" class="inline next">"#
            #expect(html.contains(next) == (role >= .reviewer))
        }
    }

    @Test("an empty queue says so")
    func empty() {
        let html = DeskPages.queue(
            QueuePage(orders: [], total: 0, next: nil), filter: QueueFilter(), context: DeskSamples.context(.viewer),
            message: nil)
        #expect(html.contains(#"id="empty""#))
        #expect(!html.contains(#"id="queue""#))
        #expect(html.contains("0 orders"))
    }
}
