import Foundation
import JSONText
import Ledger
import Testing

@Suite("Reviewer verdicts that last", .serialized)
struct ReviewTests {
    func summary(_ s: Scratch, _ dir: String) throws -> JSONObject {
        try #require(try JSONParser.parse(try s.read(dir + "/summary.json")).object)
    }

    @Test(
        "a legit verdict keeps the order in the reports, out of flagged, money at risk and --fail-on; fraud brings it back; reruns keep it"
    )
    func legitDoesNotFail() throws {
        let s = try Scratch()
        try s.write(
            "Rules/catalog.csv",
            "item_id,platform,product_id,type,price,currency\ngems,ios,com.x.gems,consumable,0.99,USD\n")
        try s.write(
            "orders.csv", "order_id,user_id,item_id,platform,created_at\nO-1,u1,gems,ios,2024-03-01T10:00:00Z\n")
        let ledger = "sqlite:" + s.file("l.sqlite")
        func night(_ out: String) throws -> ToolRun {
            try Tool.run([
                "screen", "--rules", s.file("Rules"), "--orders", s.file("orders.csv"), "--out", s.file(out),
                "--ledger", ledger, "--fail-on", "medium",
            ])
        }
        #expect(try night("n1").status == 1)
        let r = try Tool.run(
            [
                "review", "--order", "O-1", "--verdict", "legit", "--note", "a lost order, receipt came by mail",
                "--ledger", ledger,
            ], environment: ["USER": "ana"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("order 'O-1' recorded as legit by ana"))

        for out in ["n2", "n2-rerun"] {
            let n = try night(out)
            #expect(n.status == 0, "\(out): \(n.stderr)")
            let line = try #require(try FindingLine.read(s.file(out + "/findings.jsonl")).first)
            #expect(line.review?["status"]?.string == "reviewed")
            #expect(line.review?["verdict"]?.string == "legit")
            #expect(line.review?["by"]?.string == "ana")
            #expect(line.review?["note"]?.string == "a lost order, receipt came by mail")
            #expect(line.review?["at"]?.string?.hasSuffix("Z") == true)
            let sum = try summary(s, out)
            #expect(sum["flagged"]?.int64 == 0)
            #expect(sum["new"]?.int64 == 0)
            #expect(sum["at_risk"]?.object?.members.isEmpty == true)
            #expect(try s.read(out + "/flagged.csv").split(separator: "\n").count == 1)
            // Still on the page, as reviewed legit.
            let row = try #require(try PageData(file: s.file(out + "/report.html")).rows.first)
            #expect(row.first?.string == "O-1")
            #expect(row.count > 9 && row[8].string == "legit")  // the order's standing
            #expect(
                row.count > 9
                    && row[9].array?.prefix(3).map(\.string) == ["legit", "a lost order, receipt came by mail", "ana"])
        }

        #expect(
            try Tool.run(["review", "--order", "O-1", "--verdict", "fraud", "--by", "bo", "--ledger", ledger]).status
                == 0)
        #expect(try night("n3").status == 1)
        #expect(try summary(s, "n3")["flagged"]?.int64 == 1)
    }

    @Test("night two marks each finding new, seen or reviewed, and summary.json counts the new ones")
    func marksOnNightTwo() throws {
        let s = try Scratch()
        try HostileNight.twoNights(in: s, reviews: [["--order", HostileNight.scriptPayload, "--verdict", "fraud"]])

        let findings = try FindingLine.read(s.file("night2/findings.jsonl")).filter { $0.orderID != nil }
        func status(_ order: String) -> Set<String> {
            Set(findings.filter { $0.orderID == order }.compactMap { $0.review?["status"]?.string })
        }
        #expect(status("O-1") == ["seen"])
        #expect(status("O-3") == ["seen"])
        #expect(status(HostileNight.scriptPayload) == ["reviewed"])
        #expect(
            findings.filter { $0.orderID == HostileNight.scriptPayload }.allSatisfy {
                $0.review?["verdict"]?.string == "fraud"
            })
        #expect(status("O-6") == ["new"])
        let all = try FindingLine.read(s.file("night2/findings.jsonl"))
        let newCounted = all.filter { $0.exempted == nil && $0.review?["status"]?.string == "new" }.count
        #expect(try summary(s, "night2")["new"]?.int64 == Int64(newCounted))
        #expect(
            try summary(s, "night1")["new"]?.int64
                == Int64(try FindingLine.read(s.file("night1/findings.jsonl")).filter { $0.exempted == nil }.count))
    }

    /// A ledger that knows order O-1 (a night screened into it); its path.
    static func ledgerKnowingO1(_ s: Scratch) throws -> String {
        let night = try HostileNight(in: s)
        let path = s.file("ledger.sqlite")
        let screen = try Tool.run(night.screenArguments(out: s.file("out"), ledger: "sqlite:" + path))
        #expect(screen.status == 0, "\(screen.stderr)")
        return path
    }

    /// `review` run with no USER and no LOGNAME in its environment, the way some cron jobs and
    /// containers start it; `prefix` runs it under another program (`unshare`).
    static func reviewWithoutLoginVariables(_ args: [String], prefix: [String] = []) throws -> ToolRun {
        let command = prefix + ["/usr/bin/env", "-u", "USER", "-u", "LOGNAME", Tool.binary.path, "review"] + args
        return try Tool.runProgram(command[0], Array(command.dropFirst()))
    }

    /// The name of this process's uid in the user database, as review finds it.
    static var uidName: String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// A uid the user database has no name for, when this machine can run the tool as that uid
    /// (a user namespace, which needs no privilege): `unshare`'s arguments to do so.
    static let namelessUser: [String]? = {
        guard let uid = [43_210, 54_321, 61_234].first(where: { getpwuid(uid_t($0)) == nil }) else { return nil }
        let unshare = ["/usr/bin/unshare", "--user", "--map-user=\(uid)", "--map-group=\(uid)"]
        guard FileManager.default.isExecutableFile(atPath: unshare[0]),
            let probe = try? Tool.runProgram(unshare[0], Array(unshare.dropFirst()) + ["/usr/bin/id", "-u"]),
            probe.status == 0, probe.stdout == "\(uid)\n"
        else { return nil }
        return unshare
    }()

    @Test("without --by, USER or LOGNAME, review records the verdict under the name of the uid")
    func authorFromTheUID() throws {
        let s = try Scratch()
        let path = try Self.ledgerKnowingO1(s)
        let name = try #require(Self.uidName, "this uid has no name")
        // A name of spaces is no name.
        let blank = try Tool.run([
            "review", "--order", "O-1", "--verdict", "fraud", "--ledger", "sqlite:" + path, "--by", "  ",
        ])
        #expect(blank.status == 2 && blank.stderr.contains("--by needs a name"), "\(blank.stderr)")
        #expect(try SQLiteLedger(path: path).review(of: "O-1") == nil)
        let r = try Self.reviewWithoutLoginVariables([
            "--order", "O-1", "--verdict", "fraud", "--ledger", "sqlite:" + path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("order 'O-1' recorded as fraud by \(name) at "), "\(r.stderr)")
        #expect(try SQLiteLedger(path: path).review(of: "O-1")?.by == name)
    }

    @Test(
        "without --by and without any login name, review is refused with exit 2, says to pass --by, and records nothing",
        // On CI a missing user namespace fails the test instead of skipping it.
        .enabled(if: namelessUser != nil || Chromium.onCI, "needs a uid without a name: unshare --user")
    )
    func noAuthorNoVerdict() throws {
        let nameless = try #require(Self.namelessUser, "unshare --user cannot run the tool as a uid without a name")
        let s = try Scratch()
        let path = try Self.ledgerKnowingO1(s)
        let r = try Self.reviewWithoutLoginVariables(
            ["--order", "O-1", "--verdict", "legit", "--ledger", "sqlite:" + path], prefix: nameless)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("pass --by NAME"), "\(r.stderr)")
        #expect(r.stderr.contains("no verdict recorded"), "\(r.stderr)")
        #expect(try SQLiteLedger(path: path).review(of: "O-1") == nil)
        // Named with --by, the same uid records it.
        let named = try Self.reviewWithoutLoginVariables(
            ["--order", "O-1", "--verdict", "legit", "--ledger", "sqlite:" + path, "--by", "ana"], prefix: nameless)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try SQLiteLedger(path: path).review(of: "O-1")?.by == "ana")
    }

    @Test("reviewing an order the ledger never saw is a usage error that names the order, and records nothing")
    func unknownOrder() throws {
        let s = try Scratch()
        let night = try HostileNight(in: s)
        let path = s.file("ledger.sqlite")
        #expect(try Tool.run(night.screenArguments(out: s.file("out"), ledger: "sqlite:" + path)).status == 0)
        let r = try Tool.run(["review", "--order", "ORD-NOPE", "--verdict", "fraud", "--ledger", "sqlite:" + path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("order 'ORD-NOPE' is unknown to the ledger"))
        #expect(try SQLiteLedger(path: path).review(of: "ORD-NOPE") == nil)
        // An order the ledger knows only by the transaction it took can be reviewed too.
        #expect(
            try Tool.run(["review", "--order", "O-1", "--verdict", "legit", "--ledger", "sqlite:" + path]).status == 0)
    }

    @Test(
        "review needs a real ledger: none or a missing file are usage errors; a server that cannot be reached exits 3; a held ledger exits 4"
    )
    func ledgerProblems() throws {
        let s = try Scratch()
        let base = ["review", "--order", "O-1", "--verdict", "fraud", "--ledger"]
        let none = try Tool.run(base + ["none"])
        #expect(none.status == 2 && none.stderr.contains("--ledger none keeps no verdicts"))
        let missing = try Tool.run(base + ["sqlite:" + s.file("nope.sqlite")])
        #expect(missing.status == 2 && missing.stderr.contains("there is no ledger at"))
        #expect(!FileManager.default.fileExists(atPath: s.file("nope.sqlite")))
        let pg = try Tool.run(base + ["postgres://night:pa55@127.0.0.1:1/iap"])
        #expect(
            pg.status == 3 && pg.stderr.contains("Connection refused") && pg.stderr.contains("no verdict recorded"),
            "\(pg.stderr)")
        #expect(!pg.stderr.contains("pa55"))
        #expect(try Tool.run(["review", "--order", "O-1", "--verdict", "maybe"]).status == 2)
        #expect(try Tool.run(["review", "--verdict", "fraud"]).stderr.contains("--order is required"))

        let night = try HostileNight(in: s)
        let path = s.file("ledger.sqlite")
        #expect(try Tool.run(night.screenArguments(out: s.file("out"), ledger: "sqlite:" + path)).status == 0)
        let held = try LedgerLock(ledgerPath: path)
        let busy = try Tool.run(base + ["sqlite:" + path])
        #expect(busy.status == 4)
        #expect(busy.stderr.contains("process \(getpid())"))
        #expect(try SQLiteLedger(path: path).review(of: "O-1") == nil)
        _ = held
    }
}

/// report.html's embedded table rows, read back with their shared strings in place.
struct PageData {
    var rows: [[JSONValue]]

    init(file: String) throws {
        let html = try String(contentsOfFile: file, encoding: .utf8)
        func block(_ id: String) throws -> JSONValue {
            let start = try #require(html.range(of: "id=\"\(id)\">"))
            let end = try #require(html[start.upperBound...].range(of: "</script>"))
            return try JSONParser.parse(String(html[start.upperBound..<end.lowerBound]))
        }
        let strings = try #require(try block("data-strings").array)
        func shared(_ v: JSONValue) -> JSONValue {
            guard case .number = v, let i = v.int64.flatMap({ Int(exactly: $0) }), strings.indices.contains(i) else {
                return v
            }
            return strings[i]
        }
        // The row's own shared fields: platform, product, amount, currency, standing, kind.
        rows = try #require(try block("data-rows").array).map { row in
            var r = row.array ?? []
            for i in [2, 3, 4, 5, 8, 11] where i < r.count { r[i] = shared(r[i]) }
            return r
        }
    }
}
