import Ledger
import Testing

@testable import DeskPages

@Suite("The order page shows everything the API gives")
struct OrderPageTests {
    static let html = DeskPages.order(SamplePages.dossier, context: DeskSamples.context(.reviewer), message: nil)

    @Test("a finding: rule, severity, message, and its evidence as a table, nested values included")
    func finding() {
        let html = Self.html
        #expect(html.contains(#"<article class="finding sev-critical" data-rule="replayed-transaction">"#))
        #expect(html.contains(#"<code class="rule">replayed-transaction</code>"#))
        #expect(html.contains(#"<table class="kv evidence"><tr><th scope="row" class="key">expected</th>"#))
        #expect(html.contains(#"<table class="kv nested">"#))
        #expect(html.contains(#"<ol class="json-list">"#))
        // A long token may break anywhere; a sentence wraps as words.
        #expect(html.contains(#"<span class="token">MIIT"#))
        #expect(html.contains(#"<span class="words">a transaction no other order was credited for</span>"#))
    }

    @Test("the receipt's fields, the transactions, the store events, the user, the runs")
    func facts() {
        let html = Self.html
        #expect(
            html.contains(#"<th scope="row" class="key">bundle id</th><td><span class="words">com.example.game</span>"#)
        )
        #expect(html.contains(#"<a class="ident" href="/orders/ORD-1000002">ORD-1000002</a>"#))
        #expect(html.contains("<code>REFUND</code>"))
        #expect(html.contains("ORD-1000014 (this one)"))
        #expect(html.contains(#"<dd class="alert">1</dd>"#))
        #expect(html.contains(#"<td class="num">12</td>"#))
    }

    @Test("notes keep their text; the verdict shows who and when")
    func notesAndVerdict() {
        let html = Self.html
        #expect(html.contains("Same device as ORD-1000002.\nAsked the player team."))
        #expect(html.contains(#"<span class="tag verdict-fraud">fraud</span> by <strong>ben</strong>"#))
    }

    @Test("the page's keys are listed")
    func keys() {
        for key in ["f", "l", "c", "n", "u"] { #expect(Self.html.contains("<kbd>\(key)</kbd>")) }
    }
}
