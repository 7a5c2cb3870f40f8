import IAPBasics
import Testing

@Suite("HTML escaping")
struct HTMLEscapingTests {
    @Test("exactly & < > \" ' become entities, each on its own and among other text")
    func theFive() {
        #expect(HTMLEscaping.escape("&") == "&amp;")
        #expect(HTMLEscaping.escape("<") == "&lt;")
        #expect(HTMLEscaping.escape(">") == "&gt;")
        #expect(HTMLEscaping.escape("\"") == "&quot;")
        #expect(HTMLEscaping.escape("'") == "&#39;")
        #expect(
            HTMLEscaping.escape(#"<a href="x" title='y'>&amp;</a>"#)
                == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
    }

    @Test("every other ASCII character, and text beyond ASCII, passes through as it was")
    func theRest() {
        let five: Set<UInt8> = [0x26, 0x3C, 0x3E, 0x22, 0x27]
        let others = String(decoding: (0..<0x80).map { UInt8($0) }.filter { !five.contains($0) }, as: UTF8.self)
        #expect(HTMLEscaping.escape(others) == others)
        #expect(HTMLEscaping.escape("plain ünïcode €, 日本, 🙂") == "plain ünïcode €, 日本, 🙂")
        #expect(HTMLEscaping.escape("é<é") == "é&lt;é")
        // Byte for byte: a decomposed "é" (e + U+0301) is not normalised on the way.
        #expect(Array(HTMLEscaping.escape("e\u{301}<").utf8) == Array("e\u{301}&lt;".utf8))
        #expect(HTMLEscaping.escape("") == "")
    }
}
