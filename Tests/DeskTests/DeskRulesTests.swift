import Foundation
import HTTPMessages
import LoopbackHTTP
import SQLiteClient
import Testing

@testable import Desk
@testable import Ledger

/// CSRF, roles, 409s, hostile requests and headers (CONTRACT §14), through the desk's handler:
/// what is refused changes nothing.
@Suite("Desk rules")
struct DeskRulesTests {
    func trail(_ h: DeskHarness) throws -> Int { try h.store().audit(since: nil, afterID: 0, limit: 10_000).count }

    @Test(
        "a POST without the session's CSRF token, or from another origin, is 403 and changes nothing",
        arguments: DeskBackend.available)
    func csrf(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let ann = try h.login("ann")
        let before = try trail(h)
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann).status == 403)
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: [("X-CSRF-Token", "forged")]).status
                == 403)
        #expect(try h.send("POST", "/orders/ORD-1/claim", as: ann, form: [("csrf", "")]).status == 403)
        let foreign = [("X-CSRF-Token", ann.csrf), ("Origin", "https://evil.example")]
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: foreign).status == 403)
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: ann.api + [("Origin", "null")]).status
                == 403)
        #expect(
            try h.send(
                "POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: ann.api + [("Sec-Fetch-Site", "cross-site")]
            ).status
                == 403)
        #expect(try trail(h) == before)
        #expect(try h.store().dossier(of: "ORD-1", now: DeskHarness.start)?.order.claimedBy == nil)
        // With the token: from the desk's own origin, or with no Origin at all.
        let own = ann.api + [("Origin", "http://127.0.0.1:8080")]
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: own).status == 200)
        #expect(try h.send("POST", "/orders/ORD-2/claim", as: ann, form: [("csrf", ann.csrf)]).status == 303)
        // A GET changes nothing, whatever it asks.
        #expect(try h.send("GET", "/api/v1/orders/ORD-3/claim", as: ann).status == 405)
    }

    @Test("what a role may not do is 403 and changes nothing", arguments: DeskBackend.available)
    func roles(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let vic = try h.login("vic")
        let ann = try h.login("ann")
        let ben = try h.login("ben")
        let lea = try h.login("lea")
        #expect(try h.send("GET", "/api/v1/queue", as: vic).status == 200)
        #expect(try h.send("GET", "/orders/ORD-1", as: vic).status == 200)
        let before = try trail(h)
        for path in ["/api/v1/orders/ORD-1/claim", "/api/v1/next", "/api/v1/orders/ORD-1/release"] {
            #expect(try h.send("POST", path, as: vic, headers: vic.api).status == 403, "\(path)")
        }
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/notes", as: vic, json: #"{"text":"hi"}"#, headers: vic.api).status
                == 403)
        #expect(try h.send("POST", "/queue/next", as: vic, form: [("csrf", vic.csrf)]).status == 403)
        #expect(try h.send("GET", "/api/v1/audit", as: ann).status == 403)
        #expect(try h.send("GET", "/audit", as: ann).status == 403)
        #expect(
            try h.send(
                "POST", "/api/v1/verdicts", as: ann, json: #"{"orders":["ORD-1"],"verdict":"fraud"}"#, headers: ann.api
            ).status
                == 403)
        #expect(try trail(h) == before)
        // Another's claim: not a reviewer's to release; a lead's.
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: ann.api).status == 200)
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/release", as: ben, headers: ben.api).status == 403)
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/release", as: lea, headers: lea.api).status == 200)
        #expect(try h.send("GET", "/api/v1/audit", as: lea).status == 200)
        let bulk = try h.send(
            "POST", "/api/v1/verdicts", as: lea,
            json: #"{"orders":["ORD-2","ORD-3","nope"],"verdict":"legit","note":"batch"}"#,
            headers: lea.api)
        #expect(bulk.status == 200)
        #expect(bulk.text.contains(#""order_id":"nope","status":404"#))
        let bulkEntries = try h.store().audit(since: nil, afterID: 0, limit: 1000).filter { $0.action == .bulkVerdict }
        #expect(bulkEntries.map(\.orderID) == ["ORD-2", "ORD-3"])
    }

    @Test(
        "two reviewers cannot both decide an order: claims and versions answer 409 naming who",
        arguments: DeskBackend.available)
    func conflicts(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let ann = try h.login("ann")
        let ben = try h.login("ben")
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ann, headers: ann.api).status == 200)
        let taken = try h.send("POST", "/api/v1/orders/ORD-1/claim", as: ben, headers: ben.api)
        #expect(taken.status == 409)
        #expect(taken.text.contains(#""claimed_by":"ann""#))
        let blocked = try h.send(
            "POST", "/api/v1/orders/ORD-1/verdict", as: ben, json: #"{"verdict":"fraud","version":1}"#, headers: ben.api
        )
        #expect(blocked.status == 409)
        #expect(blocked.text.contains("ann"))
        // ann read version 1, then ben noted the order: ann's verdict on version 1 is stale.
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/notes", as: ben, json: #"{"text":"see refund"}"#, headers: ben.api)
                .status == 200)
        let stale = try h.send(
            "POST", "/api/v1/orders/ORD-1/verdict", as: ann, json: #"{"verdict":"legit","version":1}"#, headers: ann.api
        )
        #expect(stale.status == 409)
        #expect(stale.text.contains(#""changed_by":"ben""#))
        let ok = try h.send(
            "POST", "/api/v1/orders/ORD-1/verdict", as: ann, json: #"{"verdict":"legit","note":"fine","version":2}"#,
            headers: ann.api)
        #expect(ok.status == 200)
        let order = try h.send("GET", "/api/v1/orders/ORD-1", as: ben)
        #expect(order.text.contains(#""verdict":"legit""#))
        #expect(order.text.contains(#""version":3"#))
        // The page's form says the same, as a page.
        let page = try h.send(
            "POST", "/orders/ORD-1/verdict", as: ben,
            form: [("csrf", ben.csrf), ("verdict", "fraud"), ("version", "1")])
        #expect(page.status == 409)
        #expect(page.text.contains("changed since you read it"))
        // Next hands out each open order once.
        let first = try h.send("POST", "/api/v1/next", as: ann, headers: ann.api)
        let second = try h.send("POST", "/api/v1/next", as: ben, headers: ben.api)
        #expect(first.status == 200)
        #expect(second.status == 200)
        #expect(ResponseFields.jsonString("order_id", in: first.text) == "ORD-2")
        #expect(ResponseFields.jsonString("order_id", in: second.text) == "ORD-3")
        #expect(try h.send("POST", "/api/v1/next", as: ann, headers: ann.api).status == 404)
    }

    @Test(
        "hostile requests: unknown paths 404, no file outside the assets, malformed bodies 400",
        arguments: DeskBackend.available)
    func hostile(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let ann = try h.login("ann")
        #expect(try h.send("GET", "/nope", as: ann).status == 404)
        #expect(try h.send("GET", "/api/v1/nope", as: ann).status == 404)
        #expect(try h.send("GET", "/assets/desk.js").status == 200)
        #expect(try h.send("GET", "/assets/Package.swift").status == 404)
        #expect(throws: HTTPRequestError.self) { try h.send("GET", "/assets/../Package.swift") }
        #expect(throws: HTTPRequestError.self) { try h.send("GET", "/assets/%2e%2e%2fPackage.swift") }
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/notes", as: ann, json: "{not json", headers: ann.api).status == 400
        )
        #expect(try h.send("POST", "/api/v1/orders/ORD-1/notes", as: ann, json: "[1]", headers: ann.api).status == 400)
        #expect(
            try h.send("POST", "/api/v1/orders/ORD-1/notes", as: ann, json: #"{"text":"\u0000"}"#, headers: ann.api)
                .status == 400)
        #expect(
            try h.send(
                "POST", "/api/v1/orders/ORD-1/verdict", as: ann, json: #"{"verdict":"maybe","version":0}"#,
                headers: ann.api
            ).status
                == 400)
        #expect(try h.send("GET", "/api/v1/queue?status=everything", as: ann).status == 400)
        #expect(try h.send("GET", "/api/v1/queue?limit=501", as: ann).status == 400)
        #expect(try h.send("GET", "/api/v1/queue?after=%3Cscript%3E", as: ann).status == 400)
        #expect(try h.send("GET", "/api/v1/orders/never-flagged", as: ann).status == 404)
    }

    @Test(
        "every response carries the security headers; the policy runs no script the desk did not write",
        arguments: DeskBackend.available)
    func headers(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let lea = try h.login("lea")
        for (method, path) in [
            ("GET", "/login"), ("GET", "/queue"), ("GET", "/orders/ORD-1"), ("GET", "/audit"), ("GET", "/api/v1/queue"),
            ("GET", "/nope"), ("GET", "/assets/desk.css"),
        ] {
            let r = try h.send(method, path, as: lea)
            let csp = try #require(r.header("Content-Security-Policy"), "\(path)")
            #expect(!csp.contains("unsafe-inline"))
            #expect(!csp.contains("unsafe-eval"))
            #expect(csp.contains("script-src 'self'"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(r.header("X-Content-Type-Options") == "nosniff")
            #expect(r.header("Referrer-Policy") == "same-origin")
            #expect(r.header("X-Frame-Options") == "DENY")
        }
    }

    @Test("a dump's markup comes back escaped in the API and on the pages")
    func escaping() throws {
        let payload = #"<script>document.body.dataset.pwned=1</script>"#
        let h = try DeskHarness(orders: [DeskHarness.flagged("ORD-<b>\"x", severity: 4, rule: payload, user: payload)])
        let lea = try h.login("lea")
        let api = try h.send("GET", "/api/v1/queue", as: lea)
        #expect(!api.text.contains("<script>"))
        #expect(!api.text.contains("<b>"))
        let page = try h.send("GET", "/queue", as: lea)
        #expect(!page.text.contains(payload))
        #expect(page.text.contains("&lt;script&gt;"))
        let order = try h.send("GET", "/orders/ORD-%3Cb%3E%22x", as: lea)
        #expect(order.status == 200)
        #expect(!order.text.contains(payload))
    }

    @Test("a damaged block of findings in the ledger is a 500 naming it on that order; the rest is served")
    func damagedBlock() throws {
        let h = try DeskHarness()
        try SQLiteConnection(path: h.ledgerPath).execute("UPDATE flagged_blocks SET data = 'not base64 %%%'")
        let lea = try h.login("lea")
        let order = try h.send("GET", "/orders/\(DeskHarness.orders[0].orderID)", as: lea)
        #expect(order.status == 500)
        #expect(order.text.contains("flagged block 0 cannot be read: not base64"), "\(order.text)")
        let api = try h.send("GET", "/api/v1/orders/\(DeskHarness.orders[0].orderID)", as: lea)
        #expect(api.status == 500 && api.text.contains("flagged block 0 cannot be read"))
        #expect(try h.send("GET", "/queue", as: lea).status == 200)
    }
}
