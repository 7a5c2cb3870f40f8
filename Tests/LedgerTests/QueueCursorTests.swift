import Foundation
import IAPBasics
import Ledger
import Testing

/// The queue's `after=` cursor, and the seeds of the `cursor` fuzz target (`Fuzz/seeds/cursor/`,
/// copied into its corpus by `Fuzz/run.sh`): cursors the encoder wrote (`--ok.txt`), cursors
/// it must refuse (`--nil.txt`), and a place's bytes before base64 (`raw-…--ok.bin`), which the
/// harness also encodes itself. `IAPSCREEN_WRITE_FUZZ_SEEDS=1 swift test --filter
/// QueueCursorTests` writes them again.
@Suite("The queue's cursor and its fuzz seeds")
struct QueueCursorTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/cursor").path

    static let typical = QueuePlace(severity: 3, firstFlaggedAt: "2024-02-29T02:00:00Z", orderID: "ORD-1000014")

    /// 23 bytes and the order id's: 3,049 of them make the longest cursor read (3,072 bytes, 4,096 characters).
    static func long(_ orderIDBytes: Int) -> QueuePlace {
        QueuePlace(
            severity: 2, firstFlaggedAt: "2024-03-01T01:26:11Z", orderID: String(repeating: "O", count: orderIDBytes))
    }

    static let places: [(name: String, place: QueuePlace)] = [
        ("typical", typical),
        ("play-order", QueuePlace(severity: 0, firstFlaggedAt: "2024-01-01T00:00:00.000Z", orderID: "GPA.3372-1234")),
        ("empty-fields", QueuePlace(severity: 4, firstFlaggedAt: "", orderID: "")),
        // The separator is read only twice: an order id may hold it.
        ("odd-order-id", QueuePlace(severity: 1, firstFlaggedAt: "2024-03-01T01:26:11Z", orderID: "a/b?c#d é\u{1F}x")),
        ("longest", long(3_049)),
    ]

    /// base64url without padding, as the encoder writes it.
    static func encoded(_ bytes: [UInt8]) -> [UInt8] {
        var text = Base64.encode(bytes, alphabet: .url)
        while text.last == "=" { text.removeLast() }
        return Array(text.utf8)
    }

    /// Cursors to refuse, each for one reason.
    static let broken: [(name: String, cursor: [UInt8])] = [
        ("too-long", Array(long(3_050).cursor.utf8)),
        ("severity-5", encoded(Array("5\u{1F}2024-02-29T02:00:00Z\u{1F}ORD-1".utf8))),
        ("severity-negative", encoded(Array("-1\u{1F}2024-02-29T02:00:00Z\u{1F}ORD-1".utf8))),
        ("severity-word", encoded(Array("high\u{1F}2024-02-29T02:00:00Z\u{1F}ORD-1".utf8))),
        ("two-fields", encoded(Array("3\u{1F}ORD-1".utf8))),
        ("not-utf8", encoded(Array("3\u{1F}2024-02-29T02:00:00Z\u{1F}ORD-".utf8) + [0xFF])),
        ("standard-alphabet", Array((typical.cursor.dropLast(2) + "+/").utf8)),
        ("cut", Array(typical.cursor.dropLast().utf8)),
        ("empty", []),
    ]

    /// Every seed's file name and bytes.
    static var seeds: [(name: String, bytes: [UInt8])] {
        places.map { ("\($0.name)--ok.txt", Array($0.place.cursor.utf8)) }
            + broken.map { ("\($0.name)--nil.txt", $0.cursor) }
            + [("raw-typical--ok.bin", (try? Base64.decode(typical.cursor, alphabet: .url)) ?? [])]
    }

    @Test("a place's cursor is URL-safe text that decodes to the place, up to 4,096 characters")
    func roundTrip() {
        for (name, place) in Self.places {
            let cursor = place.cursor
            let urlSafe = cursor.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
            #expect(urlSafe, "\(name)")
            #expect(QueuePlace(cursor: cursor) == place, "\(name)")
        }
        #expect(Self.long(3_049).cursor.utf8.count == 4_096)
        #expect(Self.long(3_050).cursor.utf8.count == 4_098)
    }

    @Test("a broken cursor is refused, never guessed")
    func brokenRefused() {
        for (name, cursor) in Self.broken {
            #expect(QueuePlace(cursor: String(decoding: cursor, as: UTF8.self)) == nil, "\(name)")
        }
    }

    @Test("the committed seeds are these, and the raw one is the typical place's bytes")
    func committedSeeds() throws {
        if ProcessInfo.processInfo.environment["IAPSCREEN_WRITE_FUZZ_SEEDS"] == "1" {
            try? FileManager.default.removeItem(atPath: Self.directory)
            try FileManager.default.createDirectory(atPath: Self.directory, withIntermediateDirectories: true)
            for s in Self.seeds { try Data(s.bytes).write(to: URL(fileURLWithPath: Self.directory + "/" + s.name)) }
        }
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.directory).sorted()
        #expect(
            committed == Self.seeds.map(\.name).sorted(),
            "Fuzz/seeds/cursor/ is stale: IAPSCREEN_WRITE_FUZZ_SEEDS=1 writes it again")
        for s in Self.seeds {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + s.name)))
            #expect(bytes == s.bytes, "\(s.name) differs: IAPSCREEN_WRITE_FUZZ_SEEDS=1 writes it again")
        }
        let raw = try #require(Self.seeds.first { $0.name.hasSuffix(".bin") })
        #expect(QueuePlace(cursor: String(decoding: Self.encoded(raw.bytes), as: UTF8.self)) == Self.typical)
    }
}
