// JSON text: JSONParser over arbitrary bytes, standard and small limits; what parses is
// written back and must parse again to the same value. Scanning must agree with parsing:
// the same error, or the same kind and the same members made from their spans.
import IAPBasics
import JSONText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lim = limits(for: data, size)
    let parsed = Result { () throws(DecodeError) in try JSONParser.parse(bytes, limits: lim) }
    if case .success(let value) = parsed {
        let text = value.jsonText
        guard let again = try? JSONParser.parse(Array(text.utf8), limits: .standard) else {
            fatalError("written JSON does not parse again: \(text)")
        }
        if again != value { fatalError("JSON changes when written and read again: \(text)") }
    }
    _ = try? JSONParser.parse(UnsafeRawBufferPointer(start: data, count: size), limits: lim)
    compareScan(bytes, lim, parsed)
    return 0
}

private func compareScan(_ bytes: [UInt8], _ lim: Limits, _ parsed: Result<JSONValue, DecodeError>) {
    var members: [JSONMember] = []
    let scanned = Result { () throws(DecodeError) in try JSONParser.scan(bytes, limits: lim, members: &members) }
    switch (parsed, scanned) {
    case (.failure(let a), .failure(let b)):
        if a != b { fatalError("parse fails with \(a), scan with \(b)") }
    case (.success(let value), .success(let kind)):
        if value.kind != kind { fatalError("parse gives \(value.kind), scan \(kind)") }
        var made: [(key: String, value: JSONValue)] = []
        for m in members {
            let key = Result { () throws(DecodeError) in try JSONParser.value(at: m.key, in: bytes, limits: lim) }
            let member = Result { () throws(DecodeError) in try JSONParser.value(at: m.value, in: bytes, limits: lim) }
            guard case .success(.string(let name)) = key, case .success(let v) = member else {
                fatalError("a scanned member cannot be made: \(m)")
            }
            made.append((name, v))
        }
        if (value.object ?? JSONObject()) != JSONObject(made) { fatalError("scanned members differ from parsed ones") }
    case (let a, let b):
        fatalError("parse gives \(a), scan \(b)")
    }
}
