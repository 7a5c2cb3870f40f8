import Foundation
import Ledger
import LoopbackHTTP
import PostgresTestSupport
import Testing

/// `iapscreen desk` as operators and reviewers use it (CONTRACT §14): started on the ledger a
/// `screen` wrote, worked over HTTP, stopped by SIGTERM; its users and its audit trail on the
/// command line.
@Suite("desk serve", .serialized)
struct DeskServeTests {
    /// The shipped samples screened into a ledger of the scratch directory; its URL and the
    /// number of orders the run flagged.
    static func screenedLedger(_ s: Scratch) throws -> (ledger: String, flagged: Int) {
        let samples = GoldenOutputTests.root + "/samples/"
        let orders = ["orders-appstore.csv.gz", "orders-play.jsonl.gz", "orders-storekit.xml.gz"].map { samples + $0 }
        let ledger = "sqlite:" + s.file("ledger.sqlite")
        let run = try Tool.run(
            ["screen", "--rules", samples + "Rules", "--orders"] + orders + [
                "--receipts", samples + "receipts-appstore.csv.gz", "--ledger", ledger, "--out", s.file("out"),
                "--quiet",
            ])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: s.file("out/summary.json"))))
        let flagged = (summary as? [String: Any])?["flagged"] as? Int ?? -1
        return (ledger, flagged)
    }

    @Test("plain HTTP only on loopback, TLS files that work, a ledger that opens: else exit 2 or 3")
    func refusals() throws {
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("l.sqlite")
        let open = try Tool.run(["desk", "serve", "--ledger", ledger, "--listen", "0.0.0.0:0"])
        #expect(open.status == 2)
        #expect(open.stderr.contains("loopback"))
        let missing = try Tool.run(
            [
                "desk", "serve", "--ledger", ledger, "--listen", "0.0.0.0:0", "--tls-cert", s.file("no.pem"),
                "--tls-key", s.file("no.key"),
            ])
        #expect(missing.status == 2)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: s.file("bad.pem")))
        let bad = try Tool.run(
            [
                "desk", "serve", "--ledger", ledger, "--listen", "127.0.0.1:0", "--tls-cert", s.file("bad.pem"),
                "--tls-key", s.file("bad.pem"),
            ])
        #expect(bad.status == 2, "\(bad.stderr)")
        try Data("not sqlite at all, not at all".utf8).write(to: URL(fileURLWithPath: s.file("junk.sqlite")))
        let junk = try Tool.run([
            "desk", "serve", "--ledger", "sqlite:" + s.file("junk.sqlite"), "--listen", "127.0.0.1:0",
        ])
        #expect(junk.status == 3)
    }

    @Test(
        "a screen's flagged orders are the queue; a verdict given while a run holds the ledger counts from the next run"
    )
    func queueAndVerdict() throws {
        let s = try Scratch()
        let (ledger, flagged) = try Self.screenedLedger(s)
        #expect(flagged > 0)
        try DeskProcess.addUser("ann", "reviewer", ledger: ledger)
        let desk = try DeskProcess(ledger: ledger)
        let ann = desk.client()
        let csrf = try DeskProcess.login(ann, "ann")
        let queue = try ann.request("GET", "/api/v1/queue?status=all&limit=500")
        #expect(queue.status == 200)
        #expect(queue.text.contains("\"total\":\(flagged)"))
        // Take the first order, as a run holds the ledger (its lock, as `screen` takes it).
        let next = try ann.request("POST", "/api/v1/next", headers: [("X-CSRF-Token", csrf)])
        #expect(next.status == 200)
        let id = try #require(ResponseFields.jsonString("order_id", in: next.text))
        let order = try ann.request("GET", "/api/v1/orders/\(id)")
        let version = try #require(ResponseFields.jsonNumber("version", in: order.text))
        do {
            let lock = try LedgerLock(ledgerPath: s.file("ledger.sqlite"))
            let verdict = try ann.request(
                "POST", "/api/v1/orders/\(id)/verdict",
                body: Array(#"{"verdict":"legit","note":"known tester","version":\#(version)}"#.utf8),
                contentType: "application/json", headers: [("X-CSRF-Token", csrf)])
            #expect(verdict.status == 200, "\(verdict.text)")
            // review, as before, waits for the run.
            let review = try Tool.run([
                "review", "--order", id, "--verdict", "fraud", "--by", "sam", "--ledger", ledger,
            ])
            #expect(review.status == 4)
            withExtendedLifetime(lock) {}
        }
        // The next run applies it: the order is reviewed legit, no longer flagged.
        let again = try Tool.run(
            ["screen", "--rules", GoldenOutputTests.root + "/samples/Rules", "--orders"]
                + ["orders-appstore.csv.gz", "orders-play.jsonl.gz", "orders-storekit.xml.gz"].map {
                    GoldenOutputTests.root + "/samples/" + $0
                }
                + [
                    "--receipts", GoldenOutputTests.root + "/samples/receipts-appstore.csv.gz", "--ledger", ledger,
                    "--out", s.file("out2"), "--quiet",
                ])
        #expect(again.status == 0 || again.status == 1, "\(again.stderr)")
        let flaggedCSV = try String(contentsOfFile: s.file("out2/flagged.csv"), encoding: .utf8)
        #expect(!flaggedCSV.split(separator: "\n").contains { $0.hasPrefix(id + ",") })
        let findings = try String(contentsOfFile: s.file("out2/findings.jsonl"), encoding: .utf8)
        #expect(
            findings.split(separator: "\n").contains { $0.contains("\"order_id\":\"\(id)\"") && $0.contains("legit") })
        let stopped = desk.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("stopped by SIGTERM"))
        // The trail has the login, the claim and the verdict, in order; no session id, no password.
        let audit = try Tool.run(["desk", "audit", "--ledger", ledger])
        #expect(audit.status == 0)
        let actions = audit.stdout.split(separator: "\n").compactMap {
            ResponseFields.jsonString("action", in: String($0))
        }
        #expect(actions.starts(with: ["user-add", "login", "claim", "verdict"]))
        #expect(!audit.stdout.contains(DeskProcess.password))
        #expect(!audit.stdout.contains(ann.cookies["__Host-iapscreen"] ?? "no cookie"))
    }

    @Test(
        "desk user: the password on stdin, at least 12 characters; list, disable, enable, unlock; ledger status counts them"
    )
    func users() throws {
        let s = try Scratch()
        let ledger = "sqlite:" + s.file("l.sqlite")
        let short = try Tool.run(
            ["desk", "user", "add", "bob", "--role", "viewer", "--ledger", ledger], stdin: Data("short\n".utf8))
        #expect(short.status == 2)
        #expect(short.stderr.contains("12"))
        try DeskProcess.addUser("bob", "viewer", ledger: ledger)
        try DeskProcess.addUser("lea", "lead", ledger: ledger)
        let twice = try Tool.run(
            ["desk", "user", "add", "bob", "--role", "lead", "--ledger", ledger],
            stdin: Data((DeskProcess.password + "\n").utf8))
        #expect(twice.status == 2)
        #expect(try Tool.run(["desk", "user", "disable", "bob", "--ledger", ledger]).status == 0)
        let list = try Tool.run(["desk", "user", "list", "--ledger", ledger])
        #expect(list.stdout == "bob\tviewer\tdisabled\nlea\tlead\tenabled\n")
        #expect(try Tool.run(["desk", "user", "enable", "nobody", "--ledger", ledger]).status == 2)
        #expect(try Tool.run(["desk", "user", "list", "--ledger", "mysql://x"]).status == 2)
        #expect(try Tool.run(["desk", "audit", "--since", "yesterday", "--ledger", ledger]).status == 2)
        #expect(try Tool.run(["desk", "user", "unlock", "bob", "--ledger", ledger]).status == 0)
        let audit = try Tool.run(["desk", "audit", "--ledger", ledger])
        #expect(audit.stdout.split(separator: "\n").count == 4)
        #expect(!audit.stdout.contains("argon2"))
    }

    @Test("a body over 1 MiB is 413 and changes nothing; the desk goes on serving")
    func bigBody() throws {
        let s = try Scratch()
        let (ledger, _) = try Self.screenedLedger(s)
        try DeskProcess.addUser("ann", "reviewer", ledger: ledger)
        let desk = try DeskProcess(ledger: ledger)
        let ann = desk.client()
        let csrf = try DeskProcess.login(ann, "ann")
        let big = [UInt8](repeating: 0x61, count: (1 << 20) + 1)
        let r = try ann.request(
            "POST", "/api/v1/orders/x/notes", body: big, contentType: "application/json",
            headers: [("X-CSRF-Token", csrf)])
        #expect(r.status == 413)
        #expect(r.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(r.header("X-Content-Type-Options") == "nosniff")
        let fresh = desk.client()
        _ = try DeskProcess.login(fresh, "ann")
        #expect(try fresh.request("GET", "/api/v1/queue").status == 200)
        #expect(desk.stop().status == 0)
    }
}

/// Two desk processes on one PostgreSQL ledger behave as one desk (CONTRACT §14).
@Suite("desk serve on PostgreSQL", .serialized, .enabled(if: TestServer.runsTests))
struct DeskTwoProcessTests {
    @Test("two desks on one database: a claim on one is 409 on the other; next hands each order out once")
    func twoDesks() throws {
        let s = try Scratch()
        let database = try TestDatabase()
        defer { database.drop() }
        let ledger = database.uri
        let samples = GoldenOutputTests.root + "/samples/"
        let screen = try Tool.run(
            ["screen", "--rules", samples + "Rules", "--orders"]
                + ["orders-appstore.csv.gz", "orders-play.jsonl.gz", "orders-storekit.xml.gz"].map { samples + $0 }
                + [
                    "--receipts", samples + "receipts-appstore.csv.gz", "--ledger", ledger, "--out", s.file("out"),
                    "--quiet",
                ])
        #expect(screen.status == 0 || screen.status == 1, "\(screen.stderr)")
        try DeskProcess.addUser("ann", "reviewer", ledger: ledger)
        try DeskProcess.addUser("ben", "reviewer", ledger: ledger)
        let one = try DeskProcess(ledger: ledger)
        let two = try DeskProcess(ledger: ledger)
        let ann = one.client()
        let ben = two.client()
        let annToken = try DeskProcess.login(ann, "ann")
        let benToken = try DeskProcess.login(ben, "ben")
        let first = try ann.request("POST", "/api/v1/next", headers: [("X-CSRF-Token", annToken)])
        #expect(first.status == 200)
        let id = try #require(ResponseFields.jsonString("order_id", in: first.text))
        let taken = try ben.request("POST", "/api/v1/orders/\(id)/claim", headers: [("X-CSRF-Token", benToken)])
        #expect(taken.status == 409)
        #expect(taken.text.contains(#""claimed_by":"ann""#))
        let blocked = try ben.request(
            "POST", "/api/v1/orders/\(id)/verdict", body: Array(#"{"verdict":"legit","version":1}"#.utf8),
            contentType: "application/json", headers: [("X-CSRF-Token", benToken)])
        #expect(blocked.status == 409)
        // Each desk's next gives another order, until none is open.
        var handed: [String] = [id]
        for (client, token) in [(ann, annToken), (ben, benToken), (ann, annToken), (ben, benToken)] {
            let r = try client.request("POST", "/api/v1/next", headers: [("X-CSRF-Token", token)])
            #expect(r.status == 200)
            if let o = ResponseFields.jsonString("order_id", in: r.text) { handed.append(o) }
        }
        #expect(Set(handed).count == handed.count)
        // Sessions are the ledger's: ann's cookie works on the other desk too.
        let annOnTwo = two.client()
        annOnTwo.cookies = ann.cookies
        #expect(try annOnTwo.request("GET", "/api/v1/me").text.contains(#""user":"ann""#))
        #expect(one.stop().status == 0)
        #expect(two.stop().status == 0)
    }
}
