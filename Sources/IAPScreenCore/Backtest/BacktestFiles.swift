import Foundation
import JSONText
import Night
import Reporting

/// backtest.csv, backtest.json and backtest.html, each under a temporary name until all
/// three are written.
enum BacktestFiles {
    static let pageHashes = ReportHTML.Hashes(
        script: ReportWriter.sha256Base64(BacktestHTML.script),
        style: ReportWriter.sha256Base64(BacktestHTML.style))

    static func write(
        rows: [BacktestRow], totals: BacktestTotals, baseline: String, candidate: String, to directory: String
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let csv = try TempFile(in: directory, for: "backtest.csv")
        let json = try TempFile(in: directory, for: "backtest.json")
        let html = try TempFile(in: directory, for: "backtest.html")
        let files = [csv, json, html]
        do {
            var chunk = Array(BacktestRow.csvHeader.utf8)
            for row in rows {
                chunk += Array(row.csvRow.utf8)
                if chunk.count > 1 << 20 {
                    try csv.write(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try csv.write(chunk)
            let totalsJSON = totals.json(version: IAPScreen.version, baseline: baseline, candidate: candidate)
            try json.write(Array((JSONWriter().string(.object(totalsJSON)) + "\n").utf8))
            try BacktestHTML.write(
                totals: totals, baseline: baseline, candidate: candidate, rows: rows, hashes: pageHashes,
                emit: html.write)
            for f in files { try f.sync() }
            for f in files { try f.publish() }
        } catch {
            for f in files { f.discard() }
            throw error
        }
    }
}
