import Foundation
import IAPBasics
import ReceiptBuilder
import SampleWorld

/// `iapscreen samples --out DIR [--orders N] [--seed N] [--mix MIX]`: a deterministic demo world.
enum SamplesCommand {
    static let spec = CommandSpec(
        name: "samples",
        summary: "Write a demo world: orders and receipts dumps, a Rules directory, and what should be flagged.",
        options: [
            OptionSpec("--out", .one, valueName: "DIR", help: "Where to write the world.", required: true),
            OptionSpec("--orders", .one, valueName: "N", help: "How many orders (default 2000)."),
            OptionSpec("--seed", .one, valueName: "N", help: "The seed that decides every order (default 1)."),
            OptionSpec("--jobs", .one, valueName: "N", help: "Signing threads (default: the number of cores)."),
            OptionSpec(
                "--mix", .one, valueName: "MIX",
                help:
                    "Which stores the orders are bought through: classic (default: half App Store receipts, a third "
                    + "Google Play, a sixth StoreKit 2) or storekit2 (nineteen in twenty StoreKit 2, three to four times faster "
                    + "to make; the same cases)."),
        ],
        details: """
            The world: orders-appstore.csv.gz (receipts in receipts-appstore.csv.gz),
            orders-storekit.xml.gz (StoreKit 2 JWS) and orders-play.jsonl.gz (Google Play), a
            Rules/ directory whose trust anchors and Google key verify every receipt (keys in
            pki/), and expected.csv: each planted order, the rules that must flag it, the rules
            that must exempt it, and its case; store-reports/ (Google Play sales and earnings
            zips, Apple Sales Summary .txt.gz) with expected-reconciliation.csv, every row reconcile
            must report; store-events.jsonl.gz, what the stores said after the credit (App Store
            notifications and refund history, Google voided purchases and RTDN pushes: refunds
            planted on some orders, which expected.csv names event-*, forged, duplicate, unmatched
            and unreadable lines among them) with expected-store-events.json, what summary.json's
            store_events must say. The same seed and size give the same orders and events;
            signatures differ because every world gets fresh test keys.
            Screen it:  iapscreen screen --rules DIR/Rules --orders DIR/orders-*.gz --receipts DIR/receipts-appstore.csv.gz --store-events DIR/store-events.jsonl.gz
            Reconcile:  iapscreen reconcile --rules DIR/Rules --orders DIR/orders-*.gz --receipts DIR/receipts-appstore.csv.gz --store-report DIR/store-reports/*
            """)

    /// The night the world's orders are credited.
    static let night = Timestamp(clampingMillis: 1_709_251_200_000, hasMilliseconds: false)  // 2024-03-01

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        guard let out = args.one("--out") else {
            io.usageError(command: spec, "--out is required: the directory to write the world into")
            return .usage
        }
        func number(_ flag: String, _ fallback: Int, max: Int) -> Int? {
            guard let text = args.one(flag) else { return fallback }
            guard let n = Int(text), n >= 0, n <= max else {
                io.usageError(command: spec, "\(flag) takes a whole number from 0 to \(max), not '\(text)'")
                return nil
            }
            return n
        }
        guard let orders = number("--orders", 2000, max: 100_000_000),
            let seed = number("--seed", 1, max: Int(Int32.max)),
            let jobs = number("--jobs", ProcessInfo.processInfo.activeProcessorCount, max: 256)
        else { return .usage }
        let mixName = args.one("--mix") ?? SampleStoreMix.classic.rawValue
        guard let mix = SampleStoreMix(rawValue: mixName) else {
            let names = SampleStoreMix.allCases.map(\.rawValue).joined(separator: " or ")
            io.usageError(command: spec, "--mix takes \(names), not '\(mixName)'")
            return .usage
        }
        do {
            let pki = try TestPKI()
            try pki.save(to: URL(fileURLWithPath: out).appendingPathComponent("pki"))
            let counts = try SampleWriter(directory: out, pki: pki, jobs: max(1, jobs))
                .write(orders: orders, seed: UInt64(seed), start: night, mix: mix)
            io.error(
                "iapscreen samples: \(counts.orders) orders (\(counts.planted) planted cases, "
                    + "\(counts.plantedReconciliation) planted store differences, "
                    + "\(counts.events.read) store events about \(counts.events.orders) orders) in \(out)")
            return .ok
        } catch {
            io.error("iapscreen samples: cannot write the world in \(out): \(error)")
            return .unreadableInput
        }
    }
}
