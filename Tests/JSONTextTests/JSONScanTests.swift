import Foundation
import IAPBasics
import JSONText
import Testing

/// What `scan` makes of a text: the error, or the top-level kind and each member made from
/// its span (`value(at:in:)`), named as it reads.
private func scanned(_ bytes: [UInt8], limits: Limits) -> Result<(JSONKind, [(String, JSONValue)]), DecodeError> {
    do throws(DecodeError) {
        var members: [JSONMember] = []
        let kind = try JSONParser.scan(bytes, limits: limits, members: &members)
        var made: [(String, JSONValue)] = []
        for m in members {
            guard case .string(let key) = try JSONParser.value(at: m.key, in: bytes, limits: limits) else {
                return .failure(DecodeError("test", "a member's name is not a string", at: m.key.start))
            }
            made.append((key, try JSONParser.value(at: m.value, in: bytes, limits: limits)))
        }
        return .success((kind, made))
    } catch {
        return .failure(error)
    }
}

/// Scanning and parsing agree: the same error at the same place, or the same kind and members.
private func expectAgreement(
    _ bytes: [UInt8], limits: Limits = .standard, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let parsed = Result { () throws(DecodeError) in try JSONParser.parse(bytes, limits: limits) }
    switch (parsed, scanned(bytes, limits: limits)) {
    case (.failure(let a), .failure(let b)):
        #expect(a == b, sourceLocation: sourceLocation)
    case (.success(let value), .success(let (kind, members))):
        #expect(value.kind == kind, sourceLocation: sourceLocation)
        let object = value.object ?? JSONObject()
        #expect(object == JSONObject(members.map { (key: $0.0, value: $0.1) }), sourceLocation: sourceLocation)
    case (let a, let b):
        Issue.record("parse gave \(a), scan gave \(b)", sourceLocation: sourceLocation)
    }
}

@Suite("Scanning an object without making its values")
struct JSONScanTests {
    @Test("every member is found where it stands, a repeated name each time, escaped names as they read")
    func members() throws {
        let text = Array(#" {"a": 1, "b\u0043": "x\ny", "c": [1, {"d": null}], "a": true, "e": "" } "#.utf8)
        var members: [JSONMember] = []
        #expect(try JSONParser.scan(text, members: &members) == .object)
        #expect(members.map(\.value.kind) == [.number, .string, .array, .bool, .string])
        #expect(members.map(\.key.isPlain) == [true, false, true, true, true])
        #expect(try JSONParser.value(at: members[1].key, in: text, limits: .standard) == .string("bC"))
        #expect(try JSONParser.value(at: members[1].value, in: text, limits: .standard) == .string("x\ny"))
        let list = JSONValue.array([.number("1"), .object(JSONObject([("d", .null)]))])
        #expect(try JSONParser.value(at: members[2].value, in: text, limits: .standard) == list)
        #expect(members[4].value.end - members[4].value.start == 2)
        expectAgreement(text)

        var nested: [JSONMember] = []
        let object = try #require(text.firstIndex(of: 0x7B, after: members[2].value.start))
        try JSONParser.members(ofObjectAt: object, in: text, limits: .standard, members: &nested)
        #expect(nested.count == 1)
        #expect(try JSONParser.value(at: nested[0].value, in: text, limits: .standard) == .null)

        // Places that hold no value are refused, not read.
        let outside = JSONSpan(start: text.count, end: text.count + 4, kind: .string, isPlain: true)
        #expect(throws: DecodeError.self) { try JSONParser.value(at: outside, in: text, limits: .standard) }
        let backwards = JSONSpan(start: -3, end: 2, kind: .number)
        #expect(throws: DecodeError.self) { try JSONParser.value(at: backwards, in: text, limits: .standard) }
        #expect(throws: DecodeError.self) {
            try JSONParser.members(ofObjectAt: -1, in: text, limits: .standard, members: &nested)
        }
        #expect(throws: DecodeError.self) {
            try JSONParser.members(ofObjectAt: members[0].value.start, in: text, limits: .standard, members: &nested)
        }
    }

    @Test("what is not an object is checked whole and named by its kind")
    func notAnObject() throws {
        var members: [JSONMember] = []
        #expect(try JSONParser.scan(Array(#" ["a", {"b": 2}] "#.utf8), members: &members) == .array)
        #expect(try JSONParser.scan(Array("12.5e3".utf8), members: &members) == .number)
        #expect(members.isEmpty)
        for text in [#""text""#, "null", "false", #"["\ud800"]"#, "[1,]", "[[[1]]", "nul"] {
            expectAgreement(Array(text.utf8))
        }
    }

    @Test("malformed text fails as parsing fails: the same code, reason and offset")
    func errors() {
        let texts = [
            "", "  ", "{", "{\"a\"", "{\"a\":", "{\"a\" 1}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{1:2}",
            "{\"a\":tru}", "{\"a\":nulll}", "{\"a\":-}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":1e}", "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12\"}", "{\"a\":\"\\ud800x\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"a\u{01}\"}", "{\"a\":1} x",
            "{\"a\":[1 2]}", "{\"a\":[1,2}", "{\"a\":{\"b\":}}", "{\"a\":\"abc", "{\"\\u0041\":1,\"A\":2}",
            "{\"a\":" + String(repeating: "9", count: 401) + "}",
        ]
        for text in texts { expectAgreement(Array(text.utf8)) }
        let invalid: [[UInt8]] = [
            Array(#"{"k":"ab"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array(#"{"k":"#.utf8) + [0xC3, 0x28] + Array(#":1}"#.utf8),
            Array(#"{"k":["#.utf8) + [0xED, 0xA0, 0x80] + Array("]}".utf8),
            Array(#"{"k":""#.utf8) + [0xE0, 0x80, 0xAF] + Array(#"\n"}"#.utf8),
            Array(#"{"k":"é\n"}"#.utf8),
        ]
        for bytes in invalid { expectAgreement(bytes) }
    }

    @Test("nesting, container sizes and length stop at the same caps")
    func caps() {
        var limits = Limits()
        limits.maxDepth = 3
        expectAgreement(Array(#"{"a":{"b":{"c":1}}}"#.utf8), limits: limits)
        expectAgreement(Array(#"{"a":{"b":{"c":{}}}}"#.utf8), limits: limits)
        expectAgreement(Array(#"{"a":[[[1]]]}"#.utf8), limits: limits)
        limits.maxDepth = 0
        expectAgreement(Array("{}".utf8), limits: limits)
        limits = Limits()
        limits.maxElements = 2
        expectAgreement(Array(#"{"a":1,"b":2}"#.utf8), limits: limits)
        expectAgreement(Array(#"{"a":1,"b":2,"c":3}"#.utf8), limits: limits)
        expectAgreement(Array(#"{"a":[1,2,3]}"#.utf8), limits: limits)
        expectAgreement(Array(#"{"a":{"x":1,"y":2,"z":3}}"#.utf8), limits: limits)
        limits = Limits()
        limits.maxPayloadBytes = 8
        expectAgreement(Array(#"{"a":123456}"#.utf8), limits: limits)
        expectAgreement(Array(String(repeating: "[", count: 100_000).utf8))
    }

    @Test("the hostile JSON corpus scans as it parses, at standard and small limits")
    func corpus() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../HostileInputTests/Corpus/json").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(names.count > 20)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            expectAgreement(bytes)
            expectAgreement(bytes, limits: .small)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func firstIndex(of byte: UInt8, after start: Int) -> Int? {
        self[(start + 1)...].firstIndex(of: byte)
    }
}
