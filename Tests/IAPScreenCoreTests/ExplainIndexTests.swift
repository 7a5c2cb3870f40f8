import Foundation
import Testing

/// The shipped sample night copied into a scratch folder (so a test may change its files),
/// screened once with its store events and a SQLite ledger: `out` holds the explain index.
private struct IndexedSamples {
    static let root = ShippedRulesTests.root
    static let orders = ["orders-appstore.csv.gz", "orders-storekit.xml.gz", "orders-play.jsonl.gz"]
    let scratch: Scratch
    let screen: ToolRun

    init(ledger: String = "sqlite:ledger.sqlite", environment: [String: String] = [:]) throws {
        scratch = try Scratch()
        let fm = FileManager.default
        for name in Self.orders + ["receipts-appstore.csv.gz", "store-events.jsonl.gz", "expected.csv"] {
            try fm.copyItem(atPath: Self.root + "/samples/" + name, toPath: scratch.file(name))
        }
        try fm.copyItem(atPath: Self.root + "/samples/Rules", toPath: scratch.file("Rules"))
        screen = try Tool.run(
            ["screen"] + Self.inputs(ledger: ledger) + ["--out", "out", "--quiet"], in: scratch.path,
            environment: environment)
    }

    static func inputs(ledger: String) -> [String] {
        ["--rules", "Rules", "--orders"] + orders + [
            "--receipts", "receipts-appstore.csv.gz", "--store-events", "store-events.jsonl.gz",
            "--now", "2024-03-02T13:00:00Z", "--ledger", ledger,
        ]
    }

    /// `explain` of `order` with the night's flags (`extra` added), answering from `out`.
    func explain(_ order: String, out: String = "out", ledger: String = "sqlite:ledger.sqlite", _ extra: [String] = [])
        throws -> ToolRun
    {
        try Tool.run(
            ["explain", "--order", order] + Self.inputs(ledger: ledger) + extra + ["--out", out], in: scratch.path)
    }

    /// The first order of the samples planted as `name` (samples/expected.csv).
    func order(_ name: String, flagged: Bool? = nil) throws -> String {
        try #require(
            try scratch.read("expected.csv").split(separator: "\n").dropFirst().compactMap { line -> String? in
                let cells = line.split(separator: ",", omittingEmptySubsequences: false)
                guard cells.count == 4, cells[3] == name else { return nil }
                if let flagged, cells[1].isEmpty == flagged { return nil }
                return String(cells[0])
            }.first)
    }

    /// What the index answers and what reading the night again answers are the same, and the
    /// index was used; the index's answer.
    @discardableResult
    func expectSameAnswer(_ order: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ToolRun {
        let indexed = try explain(order)
        let again = try explain(order, out: "no-index-here")
        #expect(!indexed.stderr.contains("not using the index"), "\(indexed.stderr)", sourceLocation: sourceLocation)
        #expect(
            again.stderr.contains("not using the index in no-index-here: there is none"), sourceLocation: sourceLocation
        )
        #expect(indexed.status == again.status, "\(order): \(indexed.stderr)", sourceLocation: sourceLocation)
        #expect(indexed.stdout == again.stdout, "\(order)", sourceLocation: sourceLocation)
        return indexed
    }

    /// Explain falls back, saying `why`, and still prints what reading the night again prints.
    func expectFallback(_ order: String, saying why: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fallback = try explain(order)
        let again = try explain(order, out: "no-index-here")
        #expect(fallback.status == 0, "\(fallback.stderr)", sourceLocation: sourceLocation)
        #expect(
            fallback.stderr.contains("iapscreen explain: not using the index in out: \(why)"), "\(fallback.stderr)",
            sourceLocation: sourceLocation)
        #expect(fallback.stderr.contains("reading the whole night again"), sourceLocation: sourceLocation)
        #expect(fallback.stdout == again.stdout, sourceLocation: sourceLocation)
    }
}

@Suite("explain answers from the index screen left")
struct ExplainIndexTests {
    @Test(
        "the index's answer is the text reading the whole night again prints: flagged, clean, a replay and its original, store events, refund requests, an order not credited, one without a receipt, one not in the dumps"
    )
    func sameText() throws {
        let w = try IndexedSamples()
        #expect(w.screen.status == 0, "\(w.screen.stderr)")
        #expect(FileManager.default.fileExists(atPath: w.scratch.file("out/explain-index.bin")))
        let replay = try w.order("replay", flagged: true)
        let replayed = try w.expectSameAnswer(replay)
        #expect(replayed.stdout.contains("took first tonight: every candidate was already taken"))
        // The original, as the replay names it.
        let named = try #require(replayed.stdout.firstMatch(of: /which order (\S+) \(user/)?.1)
        let original = try w.expectSameAnswer(String(named))
        #expect(original.stdout.contains("picked: #1, taken first by this order"))
        #expect(original.stdout.contains("ledger: an earlier run recorded order \(named)"))
        let event = try w.expectSameAnswer(try w.order("event-refund-notification"))
        #expect(event.stdout.contains("store events of its transaction:"))
        #expect(
            event.stdout.contains("fired   refunded-after-credit") || event.stdout.contains("refunded-after-credit:"))
        let request = try w.expectSameAnswer(try w.order("request-answered"))
        #expect(request.stdout.contains("refund requests of its transaction:"))
        let uncredited = try w.expectSameAnswer(try w.order("not-credited"))
        #expect(uncredited.stdout.contains("not screened: the order is"))
        for name in [
            "clean", "item-mismatch", "missing-receipt", "duplicate-row", "restore", "event-refund-before-credit",
        ] {
            try w.expectSameAnswer(try w.order(name))
        }
        let absent = try w.expectSameAnswer("ORD-NOT-THERE")
        #expect(absent.status == 2)
        #expect(absent.stderr.contains("order 'ORD-NOT-THERE' is not in the orders dumps"))
    }

    @Test("a night screened without a ledger is explained from its index without one")
    func withoutLedger() throws {
        let w = try IndexedSamples(ledger: "none")
        #expect(w.screen.status == 0, "\(w.screen.stderr)")
        let indexed = try w.explain(try w.order("replay", flagged: true), ledger: "none")
        let again = try w.explain(try w.order("replay", flagged: true), out: "elsewhere", ledger: "none")
        #expect(!indexed.stderr.contains("not using the index"), "\(indexed.stderr)")
        #expect(indexed.stdout == again.stdout)
        // A ledger that is not there yet is no earlier run either: the index answers, naming it.
        let noLedgerYet = try w.expectSameAnswer(try w.order("clean"))
        #expect(noLedgerYet.stdout.contains("ledger: no ledger yet at ledger.sqlite (no earlier run)"))
        // One with a run is another night's memory: the claims could differ.
        let other = try Tool.run(
            ["screen", "--rules", "Rules", "--orders", "orders-play.jsonl.gz", "--out", "other", "--quiet"],
            in: w.scratch.path)
        #expect(other.status == 0, "\(other.stderr)")
        let withLedger = try w.explain(try w.order("clean"), ledger: "sqlite:iapscreen-ledger.sqlite")
        #expect(withLedger.stderr.contains("screen ran without a ledger, and the ledger's last run is run 1"))
    }

    @Test(
        "an input, the Rules or --environment that differ from screen's: explain reads the night again and says which")
    func changedNight() throws {
        let w = try IndexedSamples()
        let order = try w.order("replay", flagged: true)
        // Same bytes, a later modification time.
        let path = w.scratch.file("receipts-appstore.csv.gz")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        try w.expectFallback(
            order, saying: "receipts-appstore.csv.gz changed since screen read it (its modification time)")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(
            atPath: IndexedSamples.root + "/samples/receipts-appstore.csv.gz", toPath: path)
        try w.expectFallback(order, saying: "receipts-appstore.csv.gz changed since screen read it")

        let w2 = try IndexedSamples()
        let rules = try #require(
            try FileManager.default.contentsOfDirectory(atPath: w2.scratch.file("Rules")).first {
                $0.hasSuffix(".rules")
            })
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: w2.scratch.file("Rules/" + rules)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("# one more comment\n".utf8))
        try handle.close()
        try w2.expectFallback(order, saying: "the Rules directory is not the one screen read")

        let w3 = try IndexedSamples()
        let sandbox = try w3.explain(order, ["--environment", "sandbox"])
        #expect(sandbox.stderr.contains("screen read with --environment production"), "\(sandbox.stderr)")
        let fewer = try Tool.run(
            [
                "explain", "--order", order, "--rules", "Rules", "--orders", "orders-appstore.csv.gz", "--ledger",
                "none",
                "--out", "out",
            ], in: w3.scratch.path)
        #expect(fewer.stderr.contains("screen read other --orders"), "\(fewer.stderr)")
    }

    @Test("after a later run on the ledger the index no longer answers; the index that run left does")
    func laterRun() throws {
        let w = try IndexedSamples()
        let order = try w.order("replay", flagged: true)
        let rerun = try Tool.run(
            ["screen"] + IndexedSamples.inputs(ledger: "sqlite:ledger.sqlite") + ["--out", "out2", "--quiet"],
            in: w.scratch.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        try w.expectFallback(order, saying: "the ledger has had run 2 (")
        let second = try w.explain(order, out: "out2")
        #expect(!second.stderr.contains("not using the index"), "\(second.stderr)")
        #expect(second.stdout == (try w.explain(order, out: "nowhere")).stdout)
    }

    @Test("no index, a truncated one, one with bytes flipped anywhere: the same answer, never a crash")
    func damagedIndex() throws {
        let w = try IndexedSamples()
        let order = try w.order("replay", flagged: true)
        let index = w.scratch.file("out/explain-index.bin")
        let intact = try Data(contentsOf: URL(fileURLWithPath: index))
        let expected = try w.explain(order, out: "nowhere").stdout

        try Data(intact.prefix(intact.count / 2)).write(to: URL(fileURLWithPath: index))
        try w.expectFallback(order, saying: "it is damaged (its end is missing)")
        // Flips through the whole file: whatever is hit, the answer stays the same.
        for at in stride(from: 0, to: intact.count, by: max(1, intact.count / 24)) + [intact.count - 20] {
            var bytes = intact
            bytes[at] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: index))
            let r = try w.explain(order)
            #expect(r.status == 0 && !r.bySignal, "flip at \(at): \(r.stderr)")
            #expect(r.stdout == expected, "flip at \(at): \(r.stderr)")
        }
        try FileManager.default.removeItem(atPath: index)
        try w.expectFallback(order, saying: "there is none")
    }

    @Test("a night read in parts leaves no index, and takes away the one an earlier night left")
    func nightInParts() throws {
        let w = try IndexedSamples()
        #expect(FileManager.default.fileExists(atPath: w.scratch.file("out/explain-index.bin")))
        let parts = try Tool.run(
            ["screen"] + IndexedSamples.inputs(ledger: "sqlite:ledger.sqlite") + ["--out", "out"], in: w.scratch.path,
            environment: ["IAPSCREEN_PART_MB": "0.05"])
        #expect(parts.status == 0, "\(parts.stderr)")
        #expect(parts.stderr.contains("no explain index: a night read in "), "\(parts.stderr)")
        #expect(parts.stderr.contains(" parts leaves no explain index; explain reads the whole night again"))
        #expect(!FileManager.default.fileExists(atPath: w.scratch.file("out/explain-index.bin")))
        try w.expectFallback(try w.order("clean"), saying: "there is none")
    }
}

@Suite("explain from the index across nights on one ledger")
struct ExplainIndexNightsTests {
    @Test(
        "each night's index answers as reading that night again does: refunds of the ledger's orders, a refunded purchase credited again, a reversal"
    )
    func threeNights() throws {
        let w = try ThreeNights()
        func explain(_ order: String, _ orders: String, events: String?, out: String) throws -> ToolRun {
            var args = ["explain", "--order", order, "--rules", "Rules", "--orders", orders, "--out", out]
            if let events { args += ["--store-events", events] }
            return try Tool.run(args + ["--ledger", "sqlite:ledger.sqlite"], in: w.scratch.path)
        }
        for (k, night) in [("night1.jsonl", nil), ("night2.jsonl", "events2.jsonl"), ("night3.jsonl", "events3.jsonl")]
            .enumerated()
        {
            let out = "out\(k + 1)"
            #expect(try w.screen(night.0, events: night.1, out: out).run.status == 0)
            for order in ["A", "C", "F", "G", "H", "D", "J", "K"] {
                let indexed = try explain(order, night.0, events: night.1, out: out)
                let again = try explain(order, night.0, events: night.1, out: "none-here")
                #expect(!indexed.stderr.contains("not using the index"), "\(order) of \(night.0): \(indexed.stderr)")
                #expect(indexed.status == again.status)
                #expect(indexed.stdout == again.stdout, "\(order) of \(night.0)")
            }
        }
    }
}

@Suite("What the index answers where the run itself changes the night's judgement")
struct ExplainIndexAfterTheRunTests {
    @Test(
        "a reversal logged before the refund it reverses: the index says what screen said; the night judged again after the run calls the reversal refund-reversed"
    )
    func reversalBeforeItsRefund() throws {
        let w = try ThreeNights()
        try w.scratch.write(
            "events.jsonl",
            [
                try w.notification("REFUND_REVERSED", uuid: "n-r", txn: "1008", at: nil),
                try w.notification("REFUND", uuid: "n-h", txn: "1008", at: "2024-03-06T00:00:00Z"),
            ].joined(separator: "\n") + "\n")
        let night = try w.screen("night2.jsonl", events: "events.jsonl", out: "out")
        #expect(night.run.status == 0, "\(night.run.stderr)")
        #expect(night.said.contains("H refunded-after-credit new"))
        #expect(!night.said.contains { $0.hasPrefix("H refund-reversed") })
        func explain(out: String) throws -> ToolRun {
            try Tool.run(
                [
                    "explain", "--order", "H", "--rules", "Rules", "--orders", "night2.jsonl", "--store-events",
                    "events.jsonl", "--ledger", "sqlite:ledger.sqlite", "--out", out,
                ], in: w.scratch.path)
        }
        let indexed = try explain(out: "out")
        #expect(!indexed.stderr.contains("not using the index"), "\(indexed.stderr)")
        #expect(indexed.stdout.contains("refunded-after-credit:"))
        #expect(!indexed.stdout.contains("refund-reversed:"), "the index keeps screen's word: \(indexed.stdout)")
        let again = try explain(out: "elsewhere")
        #expect(again.stdout.contains("refund-reversed:"), "after the run the refund counts as reported")
    }
}
