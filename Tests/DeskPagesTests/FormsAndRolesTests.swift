import Ledger
import Testing

@testable import DeskPages

@Suite("Forms carry the token, and each role sees the forms it may use")
struct FormsAndRolesTests {
    static let csrf = #"<input type="hidden" name="csrf" value="CSRF-TOKEN-1234">"#

    /// Each `<form …>` of the page, with what it holds up to its end.
    static func forms(_ html: String) -> [String] {
        html.matches(of: /<form[^>]*>.*?<\/form>/.dotMatchesNewlines()).map { String($0.output) }
    }

    static func dossier(claimedBy: String?, verdict: DeskVerdict? = nil) -> OrderDossier {
        var d = DeskSamples.hostileDossier(claimedBy: claimedBy, version: 42)
        d.order.flagged.orderID = "ORD 1/2"
        d.verdict = verdict
        return d
    }

    @Test("every POST form carries the session's token")
    func everyPostCarriesCSRF() {
        let context = DeskSamples.context(.lead)
        let pages = [
            DeskPages.queue(
                QueuePage(orders: [], total: 0, next: nil), filter: QueueFilter(), context: context, message: nil),
            DeskPages.order(Self.dossier(claimedBy: "ann"), context: context, message: nil),
            DeskPages.order(Self.dossier(claimedBy: nil), context: context, message: nil),
            DeskPages.audit([], since: nil, context: context),
            DeskPages.error(status: 404, message: "no such order", context: context),
            DeskPages.login(csrf: "CSRF-TOKEN-1234", username: nil, error: nil),
        ]
        var posts = 0
        for html in pages {
            for form in Self.forms(html) where form.contains(#"method="post""#) {
                posts += 1
                #expect(form.contains(Self.csrf), "\(form)")
            }
        }
        #expect(posts >= 8)
    }

    @Test("the login form: POST /login, username, password, csrf, focus on the name")
    func login() {
        let html = DeskPages.login(csrf: "CSRF-TOKEN-1234", username: "ann", error: "wrong name or password")
        #expect(html.contains(#"<form method="post" action="/login" id="login-form">"#))
        #expect(html.contains(Self.csrf))
        #expect(html.contains(#"name="username" id="username" value="ann""#))
        #expect(html.contains("autofocus"))
        #expect(html.contains(#"type="password" name="password""#))
        #expect(html.contains(#"role="alert">wrong name or password<"#))
        #expect(!html.contains("logout"))
    }

    @Test("the verdict form posts the order's version, a fraud/legit choice and a note")
    func verdictForm() throws {
        let html = DeskPages.order(
            Self.dossier(claimedBy: "ann"), context: DeskSamples.context(.reviewer), message: nil)
        let form = try #require(Self.forms(html).first { $0.contains(#"id="verdict-form""#) })
        #expect(form.contains(#"action="/orders/ORD%201%2F2/verdict""#))
        #expect(form.contains(Self.csrf))
        #expect(form.contains(#"<input type="hidden" name="version" value="42">"#))
        #expect(form.contains(#"name="verdict" value="fraud" id="verdict-fraud""#))
        #expect(form.contains(#"name="verdict" value="legit" id="verdict-legit""#))
        #expect(form.contains(#"<textarea name="note" id="verdict-note""#))
        let notes = try #require(Self.forms(html).first { $0.contains(#"id="note-form""#) })
        #expect(notes.contains(#"action="/orders/ORD%201%2F2/notes""#))
        #expect(notes.contains(#"<textarea name="text" id="note-text""#))
    }

    @Test("a viewer reads: no claim, release, next, note or verdict form; only log out")
    func viewer() {
        let context = DeskSamples.context(.viewer)
        let order = DeskPages.order(Self.dossier(claimedBy: nil), context: context, message: nil)
        let queue = DeskPages.queue(
            QueuePage(orders: [DeskSamples.hostileOrder()], total: 1, next: nil), filter: QueueFilter(),
            context: context,
            message: nil)
        for html in [order, queue] {
            let posts = Self.forms(html).filter { $0.contains(#"method="post""#) }
            #expect(posts.count == 1)
            #expect(posts.first?.contains(#"action="/logout""#) == true)
            #expect(!html.contains(#"id="audit-link""#))
        }
    }

    @Test("a reviewer claims an open order, extends and releases their own, cannot release another's")
    func reviewerClaims() {
        let context = DeskSamples.context(.reviewer)
        let open = DeskPages.order(Self.dossier(claimedBy: nil), context: context, message: nil)
        #expect(open.contains(#"action="/orders/ORD%201%2F2/claim" id="claim-form""#))
        #expect(!PageChecks.has(open, id: "release-form"))
        #expect(PageChecks.has(open, id: "next-form"))
        let mine = DeskPages.order(Self.dossier(claimedBy: "ann"), context: context, message: nil)
        #expect(mine.contains("Extend my claim"))
        #expect(mine.contains(#"action="/orders/ORD%201%2F2/release" id="release-form""#))
        let theirs = DeskPages.order(Self.dossier(claimedBy: "ben"), context: context, message: nil)
        #expect(!PageChecks.has(theirs, id: "claim-form"))
        #expect(!PageChecks.has(theirs, id: "release-form"))
        #expect(theirs.contains("Claimed by <strong class=\"holder\">ben</strong> until"))
        #expect(theirs.contains("(20 min left)"))
    }

    @Test("a lead may release another's claim and has the audit link")
    func lead() {
        let html = DeskPages.order(Self.dossier(claimedBy: "ben"), context: DeskSamples.context(.lead), message: nil)
        #expect(PageChecks.has(html, id: "release-form"))
        #expect(!PageChecks.has(html, id: "claim-form"))
        #expect(html.contains(#"<a id="audit-link" href="/audit">Audit</a>"#))
        let reviewer = DeskPages.order(
            Self.dossier(claimedBy: "ben"), context: DeskSamples.context(.reviewer), message: nil)
        #expect(!reviewer.contains("audit-link"))
    }

    @Test("a 409 message is shown at the top of the order")
    func message() {
        let html = DeskPages.order(
            Self.dossier(claimedBy: "ben"), context: DeskSamples.context(.reviewer),
            message: "claimed by ben until 2024-03-01T11:20:00Z")
        #expect(
            html.contains(
                #"<p id="message" class="message" role="alert">claimed by ben until 2024-03-01T11:20:00Z</p>"#))
    }
}
