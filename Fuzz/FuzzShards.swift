// What one worker of a sharded run reads of another's bytes: every line of the input as a
// line of `shard-reports.jsonl` (JSONParser, then OrderReportLine.report, which `merge`
// does), and as a staged order's candidates (StagedCandidates.decode). Whatever reads back
// must write itself again.
import JSONText
import Reporting
import Screening

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShards(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for line in bytes.split(separator: 0x0A) {
        if let object = try? JSONParser.parse(Array(line), limits: .small).object,
            let (key, report) = OrderReportLine.report(object)
        {
            guard OrderReportLine.report(OrderReportLine.line(report, key: key))?.report.findings == report.findings
            else {
                fatalError("a report line does not read back as it was written")
            }
        }
        let text = String(decoding: line, as: UTF8.self)
        if let candidates = StagedCandidates.decode(text),
            StagedCandidates.decode(StagedCandidates.encode(candidates)) == nil
        {
            fatalError("staged candidates do not read back")
        }
    }
    return 0
}
