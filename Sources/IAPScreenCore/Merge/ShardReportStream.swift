import Decompression
import DumpFormats
import Foundation
import JSONText
import Night
import Reporting

/// One shard's `shard-reports.jsonl`, a report at a time (memory stays flat). Its lines
/// are parsed and formatted a batch ahead on a thread of their own: one per shard, beside
/// the one writing the merged reports.
final class ShardReportStream {
    typealias Item = (key: Int64, report: OrderReport, formatted: ReportLines)
    private let ahead: BatchedReadAhead<Item>

    init(_ path: String) throws(MergeCommand.Problem) {
        let lines: LogLineReader
        do {
            lines = try LogLineReader(path: path)
        } catch {
            throw MergeCommand.Problem(message: "cannot read \(path): \(error.reason)", status: .unreadableInput)
        }
        // Only the reading thread touches the reader.
        nonisolated(unsafe) let reader = lines
        ahead = BatchedReadAhead(depth: 4, batch: 256) { () throws(InputError) -> Item? in
            try Self.report(reader).map { ($0.key, $0.report, ReportLines($0.report)) }
        }
    }

    func next() throws(MergeCommand.Problem) -> Item? {
        do {
            return try ahead.next()
        } catch {
            throw MergeCommand.Problem(message: error.reason, status: .unreadableInput)
        }
    }

    /// The next line's report; a line that is none ends the merge (its whole message in the reason).
    private static func report(_ lines: LogLineReader) throws(InputError) -> (key: Int64, report: OrderReport)? {
        let line: LogLineReader.Line?
        do {
            line = try lines.next()
        } catch {
            throw InputError(path: lines.path, reason: "cannot read \(lines.path): \(error.reason)")
        }
        guard let line else { return nil }
        guard !line.tooLong, let object = try? JSONParser.parse(line.bytes, limits: .standard).object,
            let r = OrderReportLine.report(object)
        else {
            throw InputError(path: lines.path, reason: "\(lines.path):\(line.number): not a report a shard writes")
        }
        return r
    }
}
