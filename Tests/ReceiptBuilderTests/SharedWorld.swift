import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import ReceiptVerification
import Testing

/// Keys are the slow part of a world: one set per test run, shared by every suite here.
let sharedKeys = Result { try TestPKI.Keys.generate() }
let sharedWorld = Result { try TestPKI(keys: sharedKeys.get()) }

func time(_ text: String) throws -> Timestamp { try #require(Timestamp.parse(text)) }

/// A verifier trusting the shared world's Apple anchors, as `Rules/trust/apple/` would.
func appleVerifier() throws -> ReceiptVerifier {
    try ReceiptVerifier(appleAnchors: sharedWorld.get().appleAnchors, googleKeys: [:])
}

/// The written text read back as a JSON object, as a screener reads a log line.
func parsedObject(_ text: String) throws -> JSONObject {
    try #require(JSONParser.parse(text).object, "not a JSON object: \(text)")
}

/// A JWS's payload segment, decoded: what the store signed, read without the decoder.
func payloadObject(ofJWS jws: String) throws -> JSONObject {
    let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
    try #require(segments.count == 3, "not a compact JWS: \(jws.prefix(40))")
    let payload = try Base64.decode(Array(segments[1].utf8), alphabet: .url)
    return try #require(JSONParser.parse(payload).object)
}

/// Decoded with the screener's own decoder and checked against the test PKI's anchors.
func decodedAndVerified(_ jws: String) throws -> (receipt: Receipt, status: SignatureStatus) {
    let receipt = try ReceiptDecoder.decode(Array(jws.utf8))
    return (receipt, try appleVerifier().verify(receipt).status)
}
