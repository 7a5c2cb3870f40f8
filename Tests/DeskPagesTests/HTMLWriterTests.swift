import Testing

@testable import DeskPages

@Suite("The one place HTML is written")
struct HTMLWriterTests {
    @Test("text and attribute values are escaped, the five characters each (HTMLEscaping)")
    func escaping() {
        var w = HTMLWriter()
        w.element("p", [.attr("title", "\"><script>"), .attr("data-x", "'")], text: "<b>&</b>")
        #expect(w.html == #"<p title="&quot;&gt;&lt;script&gt;" data-x="&#39;">&lt;b&gt;&amp;&lt;/b&gt;</p>"#)
    }

    @Test("an order id is one percent-encoded segment under /orders/")
    func orderLinks() {
        #expect(DeskURL.order("ORD-1000014").text == "/orders/ORD-1000014")
        #expect(DeskURL.order("a/b?c#d").text == "/orders/a%2Fb%3Fc%23d")
        #expect(DeskURL.order("javascript:alert(1)").text == "/orders/javascript%3Aalert%281%29")
        #expect(DeskURL.order("\"'<script>&é ").text == "/orders/%22%27%3Cscript%3E%26%C3%A9%20")
        #expect(DeskURL.order("x y", "verdict").text == "/orders/x%20y/verdict")
    }

    @Test("query values are percent-encoded and empty ones left out")
    func queries() {
        let url = DeskURL("/queue", query: [("status", "open"), ("rule", ""), ("q", "a+b&c=d"), ("assignee", nil)])
        #expect(url.text == "/queue?status=open&q=a%2Bb%26c%3Dd")
        var w = HTMLWriter()
        w.element("a", [.href(url)], text: "x")
        #expect(w.html == #"<a href="/queue?status=open&amp;q=a%2Bb%26c%3Dd">x</a>"#)
    }

    @Test("readable times keep their exact text in datetime")
    func times() {
        var w = HTMLWriter()
        w.time("2024-03-01T01:26:11Z")
        w.time(nil)
        #expect(
            w.html == #"<time datetime="2024-03-01T01:26:11Z">2024-03-01 01:26:11Z</time><span class="none">—</span>"#)
        #expect(TimeView.left(20 * 60_000) == "20 min left")
        #expect(TimeView.left(1) == "1 min left")
        #expect(TimeView.left(125 * 60_000) == "2 h 5 min left")
        #expect(TimeView.left(0) == "lapsed")
    }
}
