// JSON text: JSONParser over arbitrary bytes, standard and small limits; what parses is
// written back and must parse again to the same value.
import IAPBasics
import JSONText

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lim = limits(for: data, size)
    if let value = try? JSONParser.parse(bytes, limits: lim) {
        let text = value.jsonText
        guard let again = try? JSONParser.parse(Array(text.utf8), limits: .standard) else {
            fatalError("written JSON does not parse again: \(text)")
        }
        if again != value { fatalError("JSON changes when written and read again: \(text)") }
    }
    _ = try? JSONParser.parse(UnsafeRawBufferPointer(start: data, count: size), limits: lim)
    return 0
}
