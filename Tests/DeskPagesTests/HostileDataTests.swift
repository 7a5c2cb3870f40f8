import IAPBasics
import Ledger
import Testing

@testable import DeskPages

@Suite("Every page shows hostile data as text and runs none of it")
struct HostileDataTests {
    static let evilLink = "/orders/" + DeskURL.encode(DeskSamples.evilID)

    @Test("the login page, with a hostile name and error", arguments: [nil, DeskSamples.evil])
    func login(username: String?) {
        let html = DeskPages.login(csrf: DeskSamples.evil, username: username, error: DeskSamples.evil)
        PageChecks.inert(html)
        PageChecks.escapedShown(html)
    }

    @Test("the queue, with hostile orders, filters, user names and message", arguments: DeskRole.allCases)
    func queue(role: DeskRole) {
        let e = DeskSamples.evil
        let page = QueuePage(
            orders: [DeskSamples.hostileOrder(), DeskSamples.hostileOrder(claimedBy: nil, verdict: nil)], total: 2,
            next: DeskSamples.hostileOrder().place)
        let filter = QueueFilter(status: .all, rule: e, minimumSeverity: 9, assignee: e, query: e, limit: 5)
        let html = DeskPages.queue(
            page, filter: filter, context: DeskPageContext(user: e, role: role, csrf: e, now: DeskSamples.now),
            message: e)
        PageChecks.inert(html)
        PageChecks.escapedShown(html)
        #expect(html.contains(#"href="\#(Self.evilLink)""#))
        #expect(html.contains(#"data-order-id="\#(HTMLEscaping.escape(DeskSamples.evilID))""#))
    }

    @Test("the order page, with hostile findings, evidence, receipt, notes and claims", arguments: DeskRole.allCases)
    func order(role: DeskRole) {
        let html = DeskPages.order(
            DeskSamples.hostileDossier(), context: DeskPageContext(user: "ann", role: role, csrf: "t", now: 0),
            message: DeskSamples.evil)
        PageChecks.inert(html)
        PageChecks.escapedShown(html)
        #expect(html.contains(#"href="\#(Self.evilLink)""#))
        // The unreadable finding line is shown as its text.
        #expect(html.contains(#"<pre class="raw">"# + HTMLEscaping.escape(DeskSamples.evil) + "</pre>"))
        // A note keeps its line break as text, for the style sheet to show.
        #expect(html.contains(#"<p class="note-text">"# + HTMLEscaping.escape(DeskSamples.evil) + "</p>"))
    }

    @Test("the audit trail, with hostile users, details and order ids")
    func audit() {
        let html = DeskPages.audit(
            DeskSamples.hostileAudit, since: DeskSamples.evil,
            context: DeskSamples.context(.lead, user: DeskSamples.evil))
        PageChecks.inert(html)
        PageChecks.escapedShown(html)
        #expect(html.contains(#"href="\#(Self.evilLink)""#))
    }

    @Test("the error page, signed in or not")
    func error() {
        for context in [nil, DeskSamples.context(.viewer, user: DeskSamples.evil)] {
            let html = DeskPages.error(status: 409, message: DeskSamples.evil, context: context)
            PageChecks.inert(html)
            PageChecks.escapedShown(html)
            #expect(html.contains("409 Conflict"))
        }
    }
}
