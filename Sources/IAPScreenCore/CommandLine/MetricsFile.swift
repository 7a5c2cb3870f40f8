import Foundation
import IAPBasics
import Night
import Reporting

/// `--metrics PATH`: the run's figures for node_exporter's textfile collector, written
/// under a temporary name beside PATH and renamed over it, so the collector never reads a
/// half-written file (it reads only `*.prom`, and the temporary name does not end so).
enum MetricsFile {
    static let option = OptionSpec(
        "--metrics", .one, valueName: "PATH",
        help:
            "Write the run's figures here in Prometheus text format (e.g. a node_exporter textfile directory's iapscreen.prom)."
    )

    /// Writes `metrics`, carrying over the last success time of the file it replaces when
    /// this run was not done. A failure to write is reported and does not change the run's
    /// exit status: the reports are what the run is for, and a stale file shows in the
    /// alert on the last success.
    static func write(_ metrics: RunMetrics, to path: String, command: String, io: Console) {
        var m = metrics
        if m.exitStatus > ExitStatus.findingsAtThreshold.rawValue {
            m.lastSuccess = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap(
                RunMetrics.lastSuccess(inPrevious:))
        }
        let url = URL(fileURLWithPath: path)
        do {
            let file = try TempFile(in: url.deletingLastPathComponent().path, for: url.lastPathComponent)
            try file.write(Array(m.text.utf8))
            try file.sync()
            try file.publish()
        } catch {
            io.error("iapscreen \(command): cannot write the metrics to \(path): \(error)")
        }
    }
}
