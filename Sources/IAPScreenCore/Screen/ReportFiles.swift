#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import JSONText
import Reporting
import Screening

/// Writes the reports of a run: each to a temporary name in the output directory, then
/// all renamed into place, so a reader never sees half a report.
enum ReportFiles {
    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ reports: [OrderReport], summary: RunSummary, to dir: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw WriteError(description: "cannot create the directory: \(error.localizedDescription)")
        }
        // The page and the data files are built side by side on the now idle workers.
        final class Built: @unchecked Sendable {
            // Each field written by one of the two iterations, read after both are done.
            var findings = [UInt8]()
            var flagged = ""
            var html = ""
        }
        let built = Built()
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            if part == 0 {
                var findings = [UInt8]()
                var flagged = FlaggedCSV.header
                for r in reports {
                    FindingsJSONL.lines(r, into: &findings)
                    if r.isFlagged { flagged += FlaggedCSV.row(r) }
                }
                built.findings = findings
                built.flagged = flagged
            } else {
                let flaggedOrders = reports.filter(\.isFlagged)
                let exempted = reports.flatMap { $0.findings.filter { $0.exempted != nil } }
                let malformed = reports.flatMap { $0.findings.filter { $0.rule == RuleID.malformedRecord.rawValue } }
                built.html = ReportHTML.render(summary: summary, flagged: flaggedOrders, exempted: exempted, malformed: malformed)
            }
        }
        let summaryText = JSONWriter().string(.object(summary.json)) + "\n"
        let files: [(String, [UInt8])] = [
            ("findings.jsonl", built.findings),
            ("flagged.csv", Array(built.flagged.utf8)),
            ("report.html", Array(built.html.utf8)),
            ("summary.json", Array(summaryText.utf8)),
        ]
        var temporary: [(String, String)] = []
        defer { for (tmp, _) in temporary { unlink(tmp) } }
        for (name, bytes) in files {
            let final = (dir as NSString).appendingPathComponent(name)
            let tmp = (dir as NSString).appendingPathComponent(".\(name).tmp-\(getpid())")
            try writeSynced(bytes, to: tmp)
            temporary.append((tmp, final))
        }
        for (tmp, final) in temporary {
            guard rename(tmp, final) == 0 else {
                throw WriteError(description: "cannot rename \(tmp) to \(final): \(String(cString: strerror(errno)))")
            }
        }
        temporary = []
    }

    private static func writeSynced(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw WriteError(description: "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}
