import Foundation
import IAPBasics
import JSONText
import Night

/// What `consumption` leaves in its `--out`: consumption.jsonl and summary.json, each under a
/// temporary name until both are written and synced, then renamed into place.
enum ConsumptionOutputs {
    static func summary(
        _ answers: RequestAnswers, night: Night, started: Timestamp, finished: Timestamp, now: Timestamp
    ) -> JSONObject {
        JSONObject([
            ("version", .string(IAPScreen.version)),
            ("started_at", .string(started.iso8601)),
            ("finished_at", .string(finished.iso8601)),
            ("now", .string(now.iso8601)),
            ("exit_status", .integer(Int64(ExitStatus.ok.rawValue))),
            ("consumption_requests", .object(answers.counts.json)),
            (
                "inputs",
                .array(
                    night.inputRecords.map {
                        .object(
                            JSONObject([
                                ("path", .string($0.path)), ("sha256", .string($0.sha256)),
                                ("records", .integer(Int64($0.records))),
                            ]))
                    })
            ),
            ("rules_sha256", .string(Summaries.rulesDigest(night.rules.rules))),
        ])
    }

    static func write(_ answers: RequestAnswers, summary: JSONObject, into directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportWriter.WriteError(description: "cannot create the directory: \(error.localizedDescription)")
        }
        let lines = try TempFile(in: directory, for: consumptionFile)
        let summaryFile = try TempFile(in: directory, for: "summary.json")
        try lines.write(answers.lines)
        try summaryFile.write(Array((JSONWriter().string(.object(summary)) + "\n").utf8))
        for f in [lines, summaryFile] { try f.sync() }
        for f in [lines, summaryFile] { try f.publish() }
    }

    static let consumptionFile = "consumption.jsonl"
}
