import Testing

/// What every page must be, whatever its data: the one script tag, no handler, no inline
/// style, no URL that leaves the desk, balanced markup, and no hostile text left raw.
enum PageChecks {
    static let voidTags: Set<String> = ["meta", "link", "input", "br", "hr", "img", "col", "wbr"]

    struct Tag {
        var name: String
        var closing: Bool
        var attributes: [(name: String, value: String?)]
    }

    /// Every tag of the page, read as a browser would: attribute values are quoted, so a `>`
    /// inside one (escaped or not) does not end the tag.
    static func tags(_ html: String) -> [Tag] {
        let tag = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>"'\/]+(?:="[^"]*")?)*)\s*>/
        let attribute = /\s+([^\s=>"'\/]+)(?:="([^"]*)")?/
        return html.matches(of: tag).map { m in
            let attributes = m.output.3.matches(of: attribute).map { a in
                (name: a.output.1.lowercased(), value: a.output.2.map(String.init))
            }
            return Tag(name: m.output.2.lowercased(), closing: !m.output.1.isEmpty, attributes: attributes)
        }
    }

    static func inert(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.hasPrefix("<!doctype html>"), sourceLocation: sourceLocation)
        #expect(html.contains(#"<meta charset="utf-8">"#), sourceLocation: sourceLocation)
        #expect(html.contains(#"<meta name="viewport""#), sourceLocation: sourceLocation)
        #expect(html.contains("<title>"), sourceLocation: sourceLocation)
        #expect(html.contains(#"<link rel="stylesheet" href="/assets/desk.css">"#), sourceLocation: sourceLocation)
        let tags = tags(html)
        // Data never opens a tag: every `<` on the page (the doctype aside) starts one read above.
        let opens = html.utf8.filter { $0 == UInt8(ascii: "<") }.count - 1
        #expect(tags.count == opens, "\(opens - tags.count) `<` outside a tag", sourceLocation: sourceLocation)
        let scripts = tags.filter { $0.name == "script" && !$0.closing }
        #expect(scripts.count == 1, "one script tag, not \(scripts.count)", sourceLocation: sourceLocation)
        #expect(html.contains(#"<script src="/assets/desk.js" defer></script>"#), sourceLocation: sourceLocation)
        #expect(
            !tags.contains { ["style", "img", "iframe", "object", "embed", "base"].contains($0.name) },
            sourceLocation: sourceLocation)
        for tag in tags {
            for a in tag.attributes {
                #expect(!a.name.hasPrefix("on"), "<\(tag.name) \(a.name)>", sourceLocation: sourceLocation)
                #expect(a.name != "style", "<\(tag.name) style>", sourceLocation: sourceLocation)
            }
        }
        for url in urls(html) {
            #expect(
                url.hasPrefix("/") && !url.hasPrefix("//"), "\(url) leaves the desk", sourceLocation: sourceLocation)
            #expect(!url.contains(/["'<> ]|&(?!amp;)/), "\(url) holds a raw character", sourceLocation: sourceLocation)
        }
        #expect(!html.contains(DeskSamples.script), sourceLocation: sourceLocation)
        #expect(!html.contains(DeskSamples.img), sourceLocation: sourceLocation)
        balanced(tags, sourceLocation: sourceLocation)
    }

    /// Every `href`, `action` and `src` value, as written (escaped).
    static func urls(_ html: String) -> [String] {
        tags(html).flatMap { t in
            t.attributes.filter { ["href", "action", "src", "formaction"].contains($0.name) }.map { $0.value ?? "" }
        }
    }

    /// Each element the code opened is closed in order.
    static func balanced(_ tags: [Tag], sourceLocation: SourceLocation = #_sourceLocation) {
        var open: [String] = []
        for tag in tags where !voidTags.contains(tag.name) {
            if !tag.closing {
                open.append(tag.name)
            } else {
                #expect(
                    open.last == tag.name, "</\(tag.name)> closes <\(open.last ?? "nothing")>",
                    sourceLocation: sourceLocation)
                if open.last == tag.name { open.removeLast() }
            }
        }
        #expect(open.isEmpty, "left open: \(open)", sourceLocation: sourceLocation)
    }

    /// The hostile pieces appear as text: escaped, and so visible to the reviewer.
    static func escapedShown(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), sourceLocation: sourceLocation)
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), sourceLocation: sourceLocation)
        #expect(html.contains("javascript:alert(1)&#39;&amp;"), sourceLocation: sourceLocation)
    }

    static func has(_ html: String, id: String) -> Bool {
        html.contains("id=\"\(id)\"")
    }
}
