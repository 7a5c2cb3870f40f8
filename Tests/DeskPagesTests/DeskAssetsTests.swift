import Testing

@testable import DeskPages

@Suite("The desk's script and style sheet")
struct DeskAssetsTests {
    static func asset(_ name: String) throws -> String {
        let dir = try #require(DeskAssets.directory())
        let files = try #require(DeskAssets.read(from: dir))
        return String(decoding: try #require(files[name]), as: UTF8.self)
    }

    @Test("both are found in SwiftPM's resource bundle beside the test runner, and read")
    func found() throws {
        let dir = try #require(DeskAssets.directory())
        #expect(dir.hasSuffix("/iapscreen_DeskPages.resources/Assets"))
        let files = try #require(DeskAssets.read(from: dir))
        #expect(Set(files.keys) == Set(DeskAssets.names))
        #expect(DeskAssets.read(from: "/nonexistent") == nil)
        #expect(DeskAssets.contentType("desk.js") == "text/javascript; charset=utf-8")
        #expect(DeskAssets.contentType("../x") == nil)
    }

    @Test("desk.js evaluates nothing and writes no markup")
    func script() throws {
        let js = try Self.asset("desk.js")
        #expect(js.contains("\"use strict\""))
        for banned in [
            "eval(", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "new Function", "setTimeout(\"",
        ] {
            #expect(!js.contains(banned), "desk.js uses \(banned)")
        }
        #expect(js.contains("DOMContentLoaded"))
    }

    @Test("desk.css does not break words anywhere")
    func style() throws {
        let css = try Self.asset("desk.css")
        #expect(!css.contains("break-all"))
        #expect(css.contains("white-space: pre-wrap"))
        for level in ["critical", "high", "medium", "low", "info"] { #expect(css.contains(".sev-" + level)) }
    }
}
