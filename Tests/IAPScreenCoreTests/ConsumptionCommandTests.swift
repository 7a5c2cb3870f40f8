import Foundation
import JSONText
import Ledger
import PostgresTestSupport
import Testing

@Suite("iapscreen consumption: refund requests answered, and screen writing the same file")
struct ConsumptionCommandTests {
    static let allCounts: [String: Int64] = [
        "read": 7, "answered": 3, "no_consent": 1, "late": 1, "invalid": 2, "decline": 1, "grant_full": 1,
        "grant_prorated": 0, "no_preference": 1,
    ]

    @Test(
        "with tonight's dumps: one line per open request in the logs' order, each once; late, forged and foreign only counted"
    )
    func answersFromTonight() throws {
        let w = try RefundRequestWorld()
        let r = try w.consumption(["--orders", "orders.jsonl", "--ledger", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr
                == "iapscreen consumption: 7 refund requests read: 3 answered (1 decline, 1 grant full, 0 grant prorated, "
                + "1 no preference), 1 without consent, 1 late, 2 not believed; consumption.jsonl in answers\n")
        let lines = try w.lines("answers")
        #expect(lines.map { $0["notification_uuid"]?.string } == ["q-1", "q-2", "q-3", "q-4"])
        #expect(try w.counts("answers") == Self.allCounts)

        // A's user consented and used 40 %: delivered, 40 %, no preference under the defaults.
        let a = lines[0]
        #expect(a["order_id"]?.string == "A" && a["user_id"]?.string == RefundRequestWorld.user1)
        #expect(a["put"]?.string == "/inApps/v2/transactions/consumption/3001")
        #expect(
            a["answer_by"]?.string == "2024-03-04T20:00:00Z" && a["requested_at"]?.string == "2024-03-04T08:00:00Z",
            "\(a)")
        #expect(a["status"]?.string == "answer" && a["reason"]?.string == "UNSATISFIED_WITH_PURCHASE")
        #expect(
            a["body"].map(\.jsonText)
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","consumptionPercentage":40000,"sampleContentProvided":true}"#
        )
        #expect(a["why"]?.array?.count == 6)
        // B's user said no: listed, no body.
        #expect(lines[1]["status"]?.string == "no-consent" && lines[1]["body"]?.isNull == true)
        // C used it all: decline.
        #expect(lines[2]["body"]?.object?["refundPreference"]?.string == "DECLINE")
        // No order took 3004; its token is u1's id, whose consent is yes: the customer is owed it.
        let d = lines[3]
        #expect(d["order_id"]?.isNull == true && d["user_id"]?.string == RefundRequestWorld.user1)
        #expect(
            d["body"].map(\.jsonText)
                == #"{"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","consumptionPercentage":0,"refundPreference":"GRANT_FULL","sampleContentProvided":false}"#
        )
        // Nothing is left under a temporary name.
        let left = try FileManager.default.contentsOfDirectory(atPath: w.scratch.file("answers")).sorted()
        #expect(left == ["consumption.jsonl", "summary.json"])
    }

    @Test("after every deadline: nothing listed, every believed request late; the rule parameters change the answers")
    func deadlinesAndParameters() throws {
        let w = try RefundRequestWorld()
        let later = try w.consumption(["--orders", "orders.jsonl", "--ledger", "none", "--now", "2024-03-04T20:00:00Z"])
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try w.scratch.read("answers/consumption.jsonl").isEmpty)
        #expect(try w.counts("answers")["late"] == 5 && w.counts("answers")["answered"] == 0)

        try w.scratch.write("Rules/refunds.rules", "consumption decline_when_consumed 40 prorate yes\n")
        let strict = try w.consumption(["--orders", "orders.jsonl", "--ledger", "none"], out: "strict")
        #expect(strict.status == 0, "\(strict.stderr)")
        #expect(try w.lines("strict")[0]["body"]?.object?["refundPreference"]?.string == "DECLINE")
    }

    @Test(
        "consent and orders known only from the ledger answer as tonight's dump would; the ledger is read without its lock and left byte for byte"
    )
    func answersFromTheSQLiteLedger() throws {
        let w = try RefundRequestWorld()
        let night = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--ledger", "sqlite:ledger.sqlite", "--out",
                "report", "--quiet",
            ], in: w.scratch.path)
        #expect(night.status == 0, "\(night.stderr)")
        let ledgerFile = w.scratch.file("ledger.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: ledgerFile))
        // A run holds the ledger: consumption does not wait for it.
        let held = try LedgerLock(ledgerPath: ledgerFile)
        let r = try w.consumption(["--ledger", "sqlite:ledger.sqlite"])
        _ = held
        #expect(r.status == 0, "\(r.stderr)")
        try Self.expectLedgerAnswers(try w.lines("answers"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: ledgerFile)) == before)
    }

    @Test("on a PostgreSQL ledger: the same answers, and the ledger's rows as they were")
    func answersFromThePostgresLedger() throws {
        let database = try TestDatabase()
        let w = try RefundRequestWorld()
        let night = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--ledger", database.uri, "--out", "report",
                "--quiet",
            ],
            in: w.scratch.path)
        #expect(night.status == 0, "\(night.stderr)")
        let before = try PostgresLedger(uri: database.uri, readOnly: true).counts()
        #expect(before.consents == 3)
        let r = try w.consumption(["--ledger", database.uri])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.expectLedgerAnswers(try w.lines("answers"))
        #expect(try PostgresLedger(uri: database.uri, readOnly: true).counts() == before)
    }

    /// What the ledger alone knows of the world's requests (no dump tonight): the orders and
    /// their users and consents, not what was consumed.
    static func expectLedgerAnswers(_ lines: [JSONObject]) throws {
        #expect(lines.map { $0["notification_uuid"]?.string } == ["q-1", "q-2", "q-3", "q-4"])
        let a = lines[0]
        #expect(a["order_id"]?.string == "A" && a["status"]?.string == "answer")
        #expect(
            a["body"].map(\.jsonText)
                == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":true}"#)
        let why = a["why"]?.array?.compactMap(\.string) ?? []
        #expect(why.contains { $0.contains("(the ledger)") }, "\(why)")
        #expect(why.contains { $0.contains("the ledger (order A of 2024-03-02T10:00:00Z)") }, "\(why)")
        #expect(lines[1]["status"]?.string == "no-consent")
        #expect(lines[3]["user_id"]?.string == RefundRequestWorld.user1)
        #expect(lines[3]["body"]?.object?["refundPreference"]?.string == "GRANT_FULL")
    }

    @Test(
        "screen --store-events writes the same consumption.jsonl beside its reports, counts in summary.json and the metrics; a night without requests removes it"
    )
    func screenWritesTheAnswers() throws {
        let w = try RefundRequestWorld()
        let alone = try w.consumption(["--orders", "orders.jsonl", "--ledger", "none"])
        #expect(alone.status == 0, "\(alone.stderr)")
        let s = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--store-events", "requests.jsonl",
                "--ledger",
                "none", "--now", RefundRequestWorld.now, "--out", "report", "--metrics", "m.prom",
            ], in: w.scratch.path)
        #expect(s.status == 0, "\(s.stderr)")
        #expect(try w.scratch.read("report/consumption.jsonl") == w.scratch.read("answers/consumption.jsonl"))
        #expect(try w.counts("report") == Self.allCounts)
        #expect(s.stderr.contains("refund requests: 7 read, 3 answered, 1 without consent, 1 late, 2 not believed"))
        let metrics = try w.scratch.read("m.prom")
        #expect(metrics.contains("iapscreen_consumption_requests{state=\"answered\"} 3\n"), "\(metrics)")
        #expect(metrics.contains("iapscreen_consumption_requests{state=\"late\"} 1\n"))
        let page = try w.scratch.read("report/report.html")
        #expect(page.contains("<section id=\"refund-requests\">") && page.contains("2024-03-04T20:00:00Z"))

        let quiet = try Tool.run(
            [
                "screen", "--rules", "Rules", "--orders", "orders.jsonl", "--ledger", "none", "--out", "report",
                "--quiet",
            ],
            in: w.scratch.path)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("report/consumption.jsonl")))
        #expect(try w.counts("report").isEmpty)
    }

    @Test(
        "consumption's own metrics file counts the requests; usage and unreadable inputs are exit 2 and 3, nothing written"
    )
    func metricsAndRefusals() throws {
        let w = try RefundRequestWorld()
        let r = try w.consumption(["--orders", "orders.jsonl", "--ledger", "none", "--metrics", "c.prom", "--quiet"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let metrics = try w.scratch.read("c.prom")
        #expect(metrics.contains("iapscreen_consumption_requests{state=\"read\"} 7\n"), "\(metrics)")
        #expect(metrics.contains("iapscreen_exit_status 0\n") && !metrics.contains("iapscreen_orders "))

        let none = try Tool.run(["consumption", "--rules", "Rules", "--out", "x"], in: w.scratch.path)
        #expect(none.status == 2 && none.stderr.contains("--store-events is required"), "\(none.stderr)")
        let badNow = try w.consumption(["--now", "yesterday"], out: "x")
        #expect(badNow.status == 2 && badNow.stderr.contains("--now takes a time"), "\(badNow.stderr)")
        let missing = try Tool.run(
            ["consumption", "--rules", "Rules", "--store-events", "gone.jsonl", "--ledger", "none", "--out", "x"],
            in: w.scratch.path)
        #expect(missing.status == 3 && missing.stderr.contains("cannot read input 'gone.jsonl'"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("x")))
    }
}

@Suite("explain shows an order's refund requests and their answers")
struct ExplainRequestsTests {
    @Test("each request about the order's transaction with its deadline, the answer and why; past the deadline, late")
    func explainsTheAnswer() throws {
        let w = try RefundRequestWorld()
        func explain(_ order: String, now: String = RefundRequestWorld.now) throws -> ToolRun {
            try Tool.run(
                [
                    "explain", "--order", order, "--rules", "Rules", "--orders", "orders.jsonl", "--store-events",
                    "requests.jsonl", "--ledger", "none", "--now", now,
                ], in: w.scratch.path)
        }
        let a = try explain("A")
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.stdout.contains("refund requests of its transaction:\n"), "\(a.stdout)")
        #expect(
            a.stdout.contains(
                "  q-1 (UNSATISFIED_WITH_PURCHASE) about transaction 3001, answer by 2024-03-04T20:00:00Z: answer, "
                    + "PUT /inApps/v2/transactions/consumption/3001 {\"customerConsented\":true,"
                    + "\"deliveryStatus\":\"DELIVERED\",\"consumptionPercentage\":40000,\"sampleContentProvided\":true}\n"
                    + "    - order A of user \(RefundRequestWorld.user1) took transaction 3001 first (tonight's dump)\n"
            ),
            "\(a.stdout)")
        #expect(
            a.stdout.contains(
                "  q-late (UNSATISFIED_WITH_PURCHASE) about transaction 3001, answer by 2024-03-04T08:00:00Z: past its deadline at 2024-03-04T10:00:00Z, not answered (late)"
            ))
        // An order no request names says nothing of requests.
        let b = try explain("C", now: "2024-03-05T00:00:00Z")
        #expect(
            b.status == 0
                && b.stdout.contains(
                    "q-3 (UNSATISFIED_WITH_PURCHASE) about transaction 3003, answer by 2024-03-04T20:00:00Z: past its deadline"
                ), "\(b.stdout)")
        let bad = try explain("A", now: "soon")
        #expect(bad.status == 2 && bad.stderr.contains("--now takes a time"))
    }
}
