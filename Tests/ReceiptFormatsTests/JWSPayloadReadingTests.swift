import IAPBasics
import JSONText
import ReceiptFormats
import Testing

// A JWS payload is scanned (its members found, only the wanted ones made); the same
// transaction stored as decoded JSON is parsed whole. Both must read alike.

private let header = #"{"alg":"ES256","x5c":["MAA="]}"#

private func segment(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .url) }

private func jws(_ payload: [UInt8]) -> [UInt8] {
    Array((segment(Array(header.utf8)) + "." + segment(payload) + ".c2ln").utf8)
}

private func outcome(_ body: () throws(DecodeError) -> Receipt) -> Result<Receipt, DecodeError> {
    do throws(DecodeError) { return .success(try body()) } catch { return .failure(error) }
}

/// The transaction read from its JWS and from its decoded JSON: the same fields, or the same
/// error (its offset aside: one counts in base64url, the other in the JSON text).
private func expectSameReading(_ payload: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let bytes = Array(payload.utf8)
    let signed = outcome { () throws(DecodeError) in try JWSDecoder.decode(jws(bytes)) }
    let decoded = outcome { () throws(DecodeError) in try ReceiptDecoder.decode(bytes) }
    switch (signed, decoded) {
    case (.success(let a), .success(let b)):
        #expect(a.purchases == b.purchases, sourceLocation: sourceLocation)
        #expect(a.environment == b.environment, sourceLocation: sourceLocation)
        #expect(a.appID == b.appID, sourceLocation: sourceLocation)
        #expect(a.appItemID == b.appItemID, sourceLocation: sourceLocation)
        #expect(a.creationDate == b.creationDate, sourceLocation: sourceLocation)
        #expect(JSONObject(a.extras) == JSONObject(b.extras), sourceLocation: sourceLocation)
    case (.failure(let a), .failure(let b)):
        #expect(a.code == b.code && a.reason == b.reason, sourceLocation: sourceLocation)
    case (let a, let b):
        Issue.record("from the JWS: \(a); from the JSON: \(b)", sourceLocation: sourceLocation)
    }
}

@Suite("App Store JWS: payloads read as their decoded JSON reads")
struct JWSPayloadReadingTests {
    @Test("a full transaction, its extras as written, numbers as strings, null and empty as absent")
    func fields() {
        expectSameReading(
            #"{"transactionId":"2000000123456789","originalTransactionId":"2000000123456789","#
                + #""bundleId":"com.example.app","productId":"com.example.coins","type":"Consumable","#
                + #""purchaseDate":1698148900000,"originalPurchaseDate":"1698148900000","quantity":"2","#
                + #""appAccountToken":null,"inAppOwnershipType":"","signedDate":1698148900001.5,"#
                + #""environment":"Sandbox","storefront":"USA","price":1990,"currency":"EUR","#
                + #""offerType":{"kind":[1,"two",null]},"appAppleId":"1234","webOrderLineItemId":77}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":"b","rawType":"Consumable","rawEnvironment":"Xcode"}"#)
    }

    @Test("a repeated name: the last one counts")
    func repeatedNames() {
        expectSameReading(#"{"transactionId":"1","productId":"first","bundleId":"b","productId":"last"}"#)
        expectSameReading(#"{"transactionId":"1","productId":"first","bundleId":"b","productId":null}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":"b","price":1,"price":"2"}"#)
    }

    @Test("a name spelt with escapes is the name it reads as")
    func escapedNames() {
        expectSameReading(#"{"transaction\u0049d":"1","bundleId":"b","product\u0049d":"p","productId":"q"}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":"b","productId":"q","product\u0049d":"p"}"#)
        expectSameReading(#"{"transactionId":"1","bundle\u0049d":"b\u00e9\n","quantity\u0000":"x"}"#)
    }

    @Test("a bad value is the same error, found through whichever spelling")
    func badValues() {
        expectSameReading(#"{"transactionId":"1","bundleId":"b","quantity":"many"}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":"b","quant\u0069ty":-1}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":"b","purchaseDate":true}"#)
        expectSameReading(#"{"transactionId":{"a":1},"bundleId":"b"}"#)
        expectSameReading(#"{"transactionId":"1","bundleId":["b"]}"#)
    }

    @Test("an error in the JWS payload's text points where it stands, in the text or past a name spelt with escapes")
    func offsets() throws {
        let payloadStart = segment(Array(header.utf8)).utf8.count + 1
        // The payload, the error's code ("" for none), and the text its offset falls just before.
        let cases: [(String, String, String)] = [
            (#"{"transactionId":"1","bundleId":"b","offerType":{"a":[1,2,tru]}}"#, "bad-json", "]}}"),
            (#"{"transactionId":"1","quantity":"x","quantity":"2"}"#, "", ""),
            (#"{"transactionId":"1","bundleId":"b","quant\u0069ty":"x"}"#, "bad-number", "{"),
            (#"{"transactionId":"1","bundleId":"b","quantity":"x"}"#, "bad-number", #""x""#),
        ]
        for (payload, code, before) in cases {
            let result = outcome { () throws(DecodeError) in try JWSDecoder.decode(jws(Array(payload.utf8))) }
            guard !code.isEmpty else {
                #expect(throws: Never.self) { try result.get() }
                continue
            }
            guard case .failure(let error) = result else {
                Issue.record("\(payload) decoded")
                continue
            }
            let range = try #require(payload.utf8.firstRange(of: before.utf8))
            let at = payload.utf8.distance(from: payload.utf8.startIndex, to: range.lowerBound)
            #expect(error.code == code)
            #expect(error.offset == payloadStart + 4 * at / 3, "\(payload)")
        }
    }
}
