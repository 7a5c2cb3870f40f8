// The review queue's `after=` cursor (`QueuePlace(cursor:)`), read from a hostile URL. The
// input is tried as the cursor's text and, so that the fuzzer reaches the fields behind the
// base64 at once, as the decoded bytes, written as the encoder would write them. Either it
// is refused or it decodes to a place whose own cursor is URL-safe text that decodes to the
// same place, byte for byte.
import IAPBasics
import Ledger

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCursor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    checkCursor(String(decoding: bytes, as: UTF8.self))
    var text = Base64.encode(bytes, alphabet: .url)
    while text.last == "=" { text.removeLast() }
    checkCursor(text)
    return 0
}

private func checkCursor(_ text: String) {
    guard let place = QueuePlace(cursor: text) else { return }
    guard (0...4).contains(place.severity) else { fatalError("a cursor decoded to severity \(place.severity)") }
    let again = place.cursor
    guard again.utf8.allSatisfy(isURLSafe) else { fatalError("a place's cursor is not URL-safe: \(again)") }
    guard let back = QueuePlace(cursor: again) else { fatalError("a decoded place's cursor does not decode: \(again)") }
    // Bytes, not String's ==, which would take a decomposed é for a composed one.
    guard back.severity == place.severity, back.firstFlaggedAt.utf8.elementsEqual(place.firstFlaggedAt.utf8),
        back.orderID.utf8.elementsEqual(place.orderID.utf8)
    else { fatalError("a decoded place's cursor decodes to another place: \(again)") }
}

/// base64url's alphabet, without padding: nothing a query value must escape.
private func isURLSafe(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
}
