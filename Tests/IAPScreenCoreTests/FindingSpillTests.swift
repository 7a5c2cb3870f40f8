import JSONText
import Screening
import Testing

@testable import Night

/// The spill file keeps each flagged order's findings until the reports are written: they
/// come back as they went in, and bytes it did not write are an error, never a crash.
@Suite("The finding spill")
struct FindingSpillTests {
    static let findings = [
        Finding(
            orderID: "O-1", userID: nil, rule: "custom ✓", severity: .critical, message: "a \"quoted\"\n\u{0}line",
            evidence: Evidence(
                expected: nil, actual: "",
                extra: [
                    ("n", .number("12.50")), ("t", .bool(true)), ("f", .bool(false)), ("z", .null),
                    ("a", .array([.string("x"), .array([])])),
                    ("o", .object(JSONObject([("k", .string("v")), ("k", .number("1"))]))),
                ]),
            exempted: "reviewer"),
        Finding(
            orderID: nil, userID: "u", rule: "malformed-record", severity: .info, message: "",
            evidence: Evidence(expected: "a readable record", actual: "x", extra: [("line", .integer(3))])),
    ]

    @Test("findings and receipt fields come back as written, beside other entries")
    func roundTrip() throws {
        let spill = try FindingSpill()
        let fields = [(key: "environment", value: "Sandbox"), (key: "", value: "é")]
        let first = try spill.append(try #require(FindingSpill.encode(Self.findings, receiptFields: fields)))
        let second = try spill.append(try #require(FindingSpill.encode([Self.findings[1]])))
        #expect(FindingSpill.encode([]) == nil)
        try spill.flushPending()
        let a = try spill.readFlushed(first)
        #expect(a.findings == Self.findings)
        #expect(a.receiptFields.map(\.key) == ["environment", ""] && a.receiptFields.map(\.value) == ["Sandbox", "é"])
        let b = try spill.readFlushed(second)
        #expect(b.findings == [Self.findings[1]] && b.receiptFields.isEmpty)
        // Read together, in one window: the same entries.
        let window = try #require(try spill.window(over: [second, first]))
        #expect(try spill.readFlushed(first, in: window).findings == Self.findings)
        #expect(try spill.readFlushed(second, in: window).findings == [Self.findings[1]])
    }

    @Test("a short or foreign entry is an error")
    func damaged() throws {
        let bytes = try #require(FindingSpill.encode(Self.findings))
        for cut in [0, 1, 5, bytes.count / 2, bytes.count - 1] {
            #expect(throws: FindingSpill.SpillError.self) {
                try bytes[..<cut].withUnsafeBytes { try SpilledEntry(reading: $0) }
            }
        }
        #expect(throws: FindingSpill.SpillError.self) {
            try (bytes + [0]).withUnsafeBytes { try SpilledEntry(reading: $0) }
        }
        let foreign: [UInt8] = [1, 0, 0, 0] + Array(repeating: 0xFF, count: 40)
        #expect(throws: FindingSpill.SpillError.self) { try foreign.withUnsafeBytes { try SpilledEntry(reading: $0) } }
    }
}
