import Foundation
import IAPBasics
import Ledger
import Night
import Reporting
import StoreCrypto

/// What `screen` makes of a screened night: summary.json's figures, the reports put in
/// place after the ledger has the run, and the timings line (IAPSCREEN_TIMINGS).
enum ScreenOutputs {
    static func summary(
        _ night: Night, _ outcome: NightScreener.Outcome, writer: ReportWriter, shard: OwnedShard?,
        started: Timestamp, status: ExitStatus, rate: Double
    ) -> RunSummary {
        var summary = Summaries.make(
            tally: writer.tally, orders: outcome.orders, receipts: outcome.receipts,
            inputs: night.inputRecords, rules: night.rules.rules, started: started,
            finished: SystemClock.now(), status: status, rate: rate)
        summary.storeEvents = night.events == nil ? nil : outcome.events.map(Summaries.storeEvents)
        summary.unverifiedStores = Summaries.unverified(night.rules.rules, seen: outcome.receiptPlatforms)
            .map(\.rawValue)
        summary.shard = shard?.spec.description
        summary.runID = shard?.runID
        return summary
    }

    /// The night's refund requests answered at `now` (an unsharded run's: a worker knows only
    /// its shard's orders; `consumption` answers a sharded night's); nil when none were read.
    static func answers(_ night: Night, _ outcome: NightScreener.Outcome, now: Timestamp) -> RequestAnswers? {
        guard night.shard == nil, let events = night.events else { return nil }
        return RequestAnswers.make(
            outcome.refundRequests ?? [], invalid: events.invalidRequests,
            settings: night.rules.rules.settings.consumption, now: now)
    }

    /// The reports wait under their temporary names until the ledger has the run: a ledger
    /// that fails (a server gone) leaves neither new reports nor a half-updated ledger. The
    /// ledger's transaction is written on a thread of its own while the reports are prepared,
    /// and commits only once they are: the night's record (its flagged orders above all) no
    /// longer waits for report.html, nor report.html for it. The exit status when something
    /// could not be done (said here), else nil.
    static func publish(
        _ night: Night, _ outcome: NightScreener.Outcome, summary: RunSummary, writer: ReportWriter,
        index: ExplainIndexOutput?, outDir: String, io: Console
    ) -> ExitStatus? {
        let memory = outcome.events?.memory ?? EventMemory()
        let run = RunRecord(
            startedAt: summary.startedAt, finishedAt: summary.finishedAt, orders: outcome.orders,
            flagged: summary.flagged, newClaims: outcome.newClaims, reported: writer.reported,
            refunds: memory.refunds, reversals: memory.reversals, events: memory.events,
            consents: night.ledger == nil ? .none : night.consents(), flaggedOrders: writer.flaggedOrders)
        let recording = OverlappedRecord(night, run)
        var prepareFailure: (any Error)?
        do {
            let legend = RuleLegend(night.rules.rules.settings)
            try writer.prepare(
                summary: summary, legend: legend,
                shardRun: night.shard.map {
                    ShardReportLines.run($0, inputs: night.inputs, legend: legend, summary: summary)
                })
        } catch {
            prepareFailure = error
        }
        let recordFailure = recording.finish(commit: prepareFailure == nil)
        if let prepareFailure {
            writer.abandon()
            index?.discard()
            io.error("iapscreen screen: cannot write the reports in \(outDir): \(prepareFailure); ledger unchanged")
            return .unreadableInput
        }
        if let recordFailure {
            writer.abandon()
            index?.discard()
            return io.nightFailed(recordFailure, command: "screen", consequence: "nothing written, ledger unchanged")
        }
        if let index { ExplainIndexStamps.seal(index, ledger: night.ledger) }
        do {
            try writer.publish()
            try index?.publish()
            // Every file in --out is tonight's: last night's answers are not left to be sent again,
            // nor an index of last night's reports (a sharded worker writes none).
            var stale: [String] = index == nil ? [ExplainIndexOutput.fileName] : []
            if summary.consumptionRequests == nil { stale.append(ConsumptionOutputs.consumptionFile) }
            for name in stale {
                let path = (outDir as NSString).appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            }
        } catch {
            writer.abandon()
            index?.discard()
            let kept = night.ledger == nil ? "" : "; the ledger has the run, so a rerun marks its findings seen"
            io.error("iapscreen screen: cannot put the reports in place in \(outDir): \(error)\(kept)")
            return .unreadableInput
        }
        return nil
    }

    /// Where the run's time and memory went.
    static func timings(
        _ night: Night, _ outcome: NightScreener.Outcome, start: Double, loaded: (at: Double, peakRSSMiB: Int),
        screened: Double, sharded: Bool
    ) -> String {
        let now = SystemClock.monotonicSeconds()
        let staged = sharded ? String(format: "shard staging and waiting %.2f s, ", night.shardSeconds) : ""
        let parts = night.partCount > 1 ? "in \(night.partCount) parts, " : ""
        let index = night.indexSeconds > 0 ? String(format: " (the explain index %.2f s)", night.indexSeconds) : ""
        let reports = screened - loaded.at - night.shardSeconds - outcome.claimSeconds
        return "timings: " + parts + String(format: "load %.2f s, ", loaded.at - start) + staged
            + String(format: "claims %.2f s, reports %.2f s", outcome.claimSeconds, reports) + index
            + String(
                format:
                    ", summary and ledger %.2f s; %d ES256 key tables; peak RSS %d MiB after the load, %d MiB at the end",
                now - screened, PublicKey.es256TablesBuilt, loaded.peakRSSMiB, ProcessMemory.peakRSSMiB())
    }
}

/// `Night.record` on a thread of its own, told at the end whether to commit (`finish`): the
/// ledger is written while the reports are prepared on the caller's thread. Nothing else
/// touches the night or the ledger meanwhile; the caller prepares only the report files.
final class OverlappedRecord: @unchecked Sendable {
    private let decided = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var commit = false
    private var failure: NightFailure?
    /// Let go before `done` is signalled: the ledger's connection must close (and SQLite
    /// checkpoint its WAL) when the caller lets go of the night, not when this thread ends.
    private var work: (night: Night, run: RunRecord)?

    init(_ night: Night, _ run: RunRecord) {
        work = (night, run)
        let thread = Thread { [self] in
            record()
            work = nil
            done.signal()
        }
        thread.start()
    }

    private func record() {
        guard let (night, run) = work else { return }
        do throws(NightFailure) {
            try night.record(
                run,
                commitIf: {
                    self.decided.wait()
                    return self.commit
                })
        } catch {
            failure = error
        }
    }

    /// Says whether to commit, waits for the record, and gives its failure (nil: recorded,
    /// or rolled back as asked).
    func finish(commit: Bool) -> NightFailure? {
        self.commit = commit
        decided.signal()
        done.wait()
        return commit ? failure : nil
    }
}
