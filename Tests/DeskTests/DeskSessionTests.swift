import Foundation
import HTTPMessages
import LoopbackHTTP
import Testing

@testable import Desk
@testable import Ledger

/// Logins, sessions and lockout as CONTRACT §14 has them, through the desk's handler.
@Suite("Desk sessions")
struct DeskSessionTests {
    @Test(
        "a login answers 303 to /queue with a new __Host- cookie whose hash alone is kept",
        arguments: DeskBackend.available)
    func login(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        let client = DeskClient()
        // A session id sent before the login is never kept: an attacker's chosen one goes.
        client.cookies["__Host-iapscreen"] = "A" + String(repeating: "b", count: 42)
        let form = try h.send("GET", "/login", as: client)
        #expect(form.status == 200)
        #expect(form.text.contains("name=\"username\"") || form.text.contains("name=username"))
        let csrf = try #require(ResponseFields.hidden("csrf", in: form.text))
        let r = try h.send(
            "POST", "/login", as: client,
            form: [("username", "ann"), ("password", DeskHarness.password), ("csrf", csrf)])
        #expect(r.status == 303)
        #expect(r.header("Location") == "/queue")
        let set = try #require(r.headers.pairs.first { $0.value.hasPrefix("__Host-iapscreen=") }?.value)
        for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] { #expect(set.contains(attribute)) }
        let token = try #require(client.cookies["__Host-iapscreen"])
        #expect(token != "A" + String(repeating: "b", count: 42))
        #expect(token.count >= 22)  // 128 bits or more
        // Only its hash is in the ledger.
        let kept = try h.sessionHashes()
        #expect(kept.count == 1)
        #expect(!kept.contains(token))
        #expect(try h.send("GET", "/queue", as: client).status == 200)
    }

    @Test(
        "an unknown user and a wrong password get the same 401, and each is audited", arguments: DeskBackend.available)
    func wrongLogins(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        func attempt(_ name: String, _ password: String) throws -> HTTPResponse {
            let client = DeskClient()
            let csrf = try #require(ResponseFields.hidden("csrf", in: try h.send("GET", "/login", as: client).text))
            return try h.send(
                "POST", "/login", as: client, form: [("username", name), ("password", password), ("csrf", csrf)])
        }
        let unknown = try attempt("nobody", "whatever whatever")
        let wrong = try attempt("ann", "not the password at all")
        #expect(unknown.status == 401)
        #expect(wrong.status == 401)
        #expect(
            unknown.text.replacingOccurrences(of: "nobody", with: "X")
                == wrong.text.replacingOccurrences(of: "ann", with: "X")
                || (unknown.text.contains("wrong user name or password")
                    && wrong.text.contains("wrong user name or password"))
        )
        let trail = try h.store().audit(since: nil, afterID: 0, limit: 100).filter { $0.action == .loginFailed }
        #expect(trail.map(\.user) == ["nobody", "ann"])
        // A login form from elsewhere (no token of ours) is refused.
        let stranger = DeskClient()
        let r = try h.send(
            "POST", "/login", as: stranger,
            form: [("username", "ann"), ("password", DeskHarness.password), ("csrf", "x")])
        #expect(r.status == 403)
    }

    @Test(
        "5 failures in 15 minutes lock the name, the right password too, until 15 minutes after the last or an unlock",
        arguments: DeskBackend.available)
    func lockout(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        func attempt(_ password: String) throws -> HTTPResponse {
            let client = DeskClient()
            let csrf = try #require(ResponseFields.hidden("csrf", in: try h.send("GET", "/login", as: client).text))
            return try h.send(
                "POST", "/login", as: client, form: [("username", "ann"), ("password", password), ("csrf", csrf)])
        }
        for _ in 0..<5 {
            #expect(try attempt("wrong password 123").status == 401)
            h.advance(minutes: 1)
        }
        let locked = try attempt(DeskHarness.password)
        #expect(locked.status == 429)
        let retry = try #require(locked.header("Retry-After").flatMap(Int.init))
        #expect(retry > 0 && retry <= 15 * 60)
        h.advance(minutes: 10)
        #expect(try attempt(DeskHarness.password).status == 429)
        h.advance(minutes: 1)
        #expect(try attempt(DeskHarness.password).status == 303)
        // Locked again, then unlocked by a lead.
        for _ in 0..<5 { _ = try attempt("wrong password 123") }
        #expect(try attempt(DeskHarness.password).status == 429)
        try h.store().unlock("ann", at: DeskHarness.start, by: "lea")
        #expect(try attempt(DeskHarness.password).status == 303)
    }

    @Test(
        "a session ends at logout, after 30 idle minutes, after 12 hours, at disable and at a new password",
        arguments: DeskBackend.available)
    func sessionEnds(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        var ann = try h.login("ann")
        h.advance(minutes: 29)
        #expect(try h.send("GET", "/queue", as: ann).status == 200)
        h.advance(minutes: 29)
        #expect(try h.send("GET", "/api/v1/me", as: ann).status == 200)
        h.advance(minutes: 31)
        #expect(try h.send("GET", "/api/v1/me", as: ann).status == 401)
        let page = try h.send("GET", "/queue", as: ann)
        #expect(page.status == 303)
        #expect(page.header("Location") == "/login")

        ann = try h.login("ann")
        for _ in 0..<(12 * 3) {
            h.advance(minutes: 20)
            _ = try h.send("GET", "/api/v1/me", as: ann)
        }
        h.advance(minutes: 1)
        #expect(try h.send("GET", "/api/v1/me", as: ann).status == 401)

        ann = try h.login("ann")
        let logout = try h.send("POST", "/logout", as: ann, form: [("csrf", ann.csrf)])
        #expect(logout.status == 303)
        #expect(try h.send("GET", "/api/v1/me", as: ann).status == 401)

        ann = try h.login("ann")
        _ = try h.store().setDisabled("ann", true, at: DeskHarness.start, by: "lea")
        #expect(try h.send("GET", "/api/v1/me", as: ann).status == 401)
        _ = try h.store().setDisabled("ann", false, at: DeskHarness.start, by: "lea")

        let ben = try h.login("ben")
        _ = try h.store().setPassword(of: "ben", hash: "$argon2id$other", at: DeskHarness.start, by: "lea")
        #expect(try h.send("GET", "/api/v1/me", as: ben).status == 401)
        let actions = try h.store().audit(since: nil, afterID: 0, limit: 1000).map(\.action.rawValue)
        #expect(actions.contains("logout"))
    }

    @Test("without a session pages go to /login and the API answers 401", arguments: DeskBackend.available)
    func noSession(_ backend: DeskBackend) throws {
        let h = try DeskHarness(backend)
        for path in ["/queue", "/orders/ORD-1", "/audit", "/"] {
            let r = try h.send("GET", path)
            #expect(r.status == 303, "\(path)")
        }
        for path in ["/api/v1/me", "/api/v1/queue", "/api/v1/orders/ORD-1", "/api/v1/audit"] {
            let r = try h.send("GET", path)
            #expect(r.status == 401, "\(path)")
            #expect(r.text.contains("\"error\""))
        }
        #expect(try h.send("POST", "/api/v1/next").status == 401)
    }
}
