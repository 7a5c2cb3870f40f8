import IAPBasics
import JSONText
import ReceiptBuilder
import ReceiptFormats
import Testing

private let header = #"{"alg":"ES256","x5c":["MAA="]}"#

private func segment(_ text: String) -> String { Base64.encode(Array(text.utf8), alphabet: .url) }
private func segment(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .url) }

private func jws(header: String = header, payload: String) -> String {
    segment(header) + "." + segment(payload) + ".c2ln"
}

/// Where decoded byte `k` of a base64url segment starting at `start` sits in the text.
private func inSegment(_ start: Int, _ k: Int) -> Int { start + 4 * k / 3 }

private func offset(of needle: String, in text: String) throws -> Int {
    let range = try #require(text.utf8.firstRange(of: needle.utf8))
    return text.utf8.distance(from: text.utf8.startIndex, to: range.lowerBound)
}

private func failure(_ text: String, limits: Limits = .standard) -> DecodeError? {
    do {
        _ = try JWSDecoder.decode(Array(text.utf8), limits: limits)
        return nil
    } catch {
        return error
    }
}

@Suite("App Store JWS: hostile input")
struct JWSHostileInputTests {
    @Test("two or four segments are refused where the shape breaks")
    func segmentCount() {
        let two = "eyJhbGciOiJFUzI1NiJ9.e30"
        #expect(
            failure(two)
                == DecodeError("bad-jws", "a compact JWS has 3 dot-separated segments, found 2", at: two.utf8.count))
        #expect(failure("eyJ.e30.c2ln.eHh4")?.code == "bad-jws")
        #expect(failure("eyJ.e30.c2ln.eHh4")?.offset == 12)
        #expect(failure("")?.code == "bad-jws")
    }

    @Test("a byte outside base64url is named at its offset in the text")
    func badBase64URL() {
        let text = segment(header) + ".e3+0.c2ln"
        let error = failure(text)
        #expect(error?.code == "bad-base64")
        #expect(error?.offset == segment(header).utf8.count + 3)
    }

    @Test("a header that is not JSON points into the header segment")
    func headerNotJSON() {
        let error = failure(jws(header: #"{"a" 1}"#, payload: "{}"))
        #expect(error?.code == "bad-json")
        #expect(error?.offset == inSegment(0, 5))
        #expect(failure(jws(header: "[1]", payload: "{}"))?.code == "not-an-object")
    }

    @Test("x5c must be a list of base64 certificates")
    func x5cShape() throws {
        let notList = #"{"alg":"ES256","x5c":"MIIB"}"#
        let error = failure(jws(header: notList, payload: #"{"transactionId":"1"}"#))
        #expect(error?.code == "bad-jws-header")
        #expect(error?.offset == inSegment(0, try offset(of: "\"MIIB", in: notList)))

        let badEntry = #"{"alg":"ES256","x5c":["AB$C"]}"#
        let entryError = failure(jws(header: badEntry, payload: #"{"transactionId":"1"}"#))
        #expect(entryError?.code == "bad-base64")
        #expect(entryError?.offset == inSegment(0, try offset(of: "$", in: badEntry)))

        #expect(failure(jws(header: #"{"x5c":[7]}"#, payload: #"{"transactionId":"1"}"#))?.code == "bad-jws-header")
    }

    @Test("numbers past 64 bits and dates past year 9999 point at their value in the payload")
    func numbersAndDates() throws {
        let payloadStart = segment(header).utf8.count + 1
        let overflow = #"{"transactionId":"1","quantity":99999999999999999999}"#
        let error = failure(jws(payload: overflow))
        #expect(error?.code == "number-out-of-range")
        #expect(error?.offset == inSegment(payloadStart, try offset(of: "9999", in: overflow)))

        let pastRange = #"{"transactionId":"1","purchaseDate":253402300800000}"#
        #expect(failure(jws(payload: pastRange))?.code == "date-out-of-range")
        #expect(failure(jws(payload: #"{"transactionId":"1","expiresDate":1e300}"#))?.code == "date-out-of-range")
        #expect(failure(jws(payload: #"{"transactionId":"1","signedDate":"soon"}"#))?.code == "bad-date")
    }

    @Test("invalid UTF-8 in the payload is refused at its byte")
    func invalidUTF8() {
        let payload: [UInt8] = Array(#"{"transactionId":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let text = segment(header) + "." + segment(payload) + ".c2ln"
        let error = failure(text)
        #expect(error?.code == "invalid-utf8")
        #expect(error?.offset == inSegment(segment(header).utf8.count + 1, 18))
    }

    @Test("deep or oversized input stops at the caps")
    func caps() {
        let deep = String(repeating: #"{"a":"#, count: 200) + "1" + String(repeating: "}", count: 200)
        #expect(failure(jws(payload: deep))?.code == "too-deep")
        var small = Limits()
        small.maxPayloadBytes = 64
        #expect(
            failure(jws(payload: #"{"transactionId":"1","productId":"a-long-product-identifier"}"#), limits: small)?
                .code
                == "too-large")
    }

    @Test("a payload of no known type, or not an object, is refused")
    func unknownPayload() {
        let payloadStart = segment(header).utf8.count + 1
        #expect(
            failure(jws(payload: #"{"hello":"world"}"#))
                == DecodeError(
                    "unknown-jws-payload",
                    "the JWS payload is none of a transaction, renewal info, app transaction or notification",
                    at: payloadStart))
        #expect(failure(jws(payload: #""text""#))?.code == "not-an-object")
    }

    @Test(
        "a broken nested JWS is reported at its place in the outer text",
        arguments: ["signedTransactionInfo", "signedRenewalInfo"])
    func brokenNestedJWS(_ key: String) throws {
        let outerPayload = #"{"notificationType":"REFUND","data":{""# + key + #"":"abc.def"}}"#
        let text = jws(payload: outerPayload)
        let error = failure(text)
        #expect(error?.code == "bad-jws")
        let closingQuote = try offset(of: "\"abc.def", in: outerPayload) + 8
        #expect(error?.offset == inSegment(segment(header).utf8.count + 1, closingQuote))
    }

    @Test(
        "a nested value that is not a JWS string is refused at that value, named",
        arguments: ["signedTransactionInfo", "signedRenewalInfo"])
    func nestedNotAString(_ key: String) throws {
        let payloadStart = segment(header).utf8.count + 1
        for (value, kind) in [
            ("42", "a number"), (#"{"signedDate":1}"#, "an object"), ("[]", "a list"), ("true", "true/false"),
        ] {
            let outerPayload = #"{"notificationType":"DID_RENEW","data":{"status":1,""# + key + #"":"# + value + "}}"
            let error = failure(jws(payload: outerPayload))
            #expect(error?.code == "bad-field-type")
            #expect(error?.reason == "data.\(key): expected a JWS, found \(kind)")
            #expect(error?.offset == inSegment(payloadStart, try offset(of: value, in: outerPayload)), "\(kind)")
        }
    }

    @Test("signedTransactionInfo may only hold a transaction, signedRenewalInfo only renewal info")
    func nestedOfTheWrongType() throws {
        let renewal = jws(payload: #"{"autoRenewProductId":"vip","signedDate":1698148900000}"#)
        let outer = jws(
            payload: #"{"notificationType":"DID_RENEW","data":{"signedTransactionInfo":""# + renewal + #""}}"#)
        #expect(failure(outer)?.code == "bad-notification")
        #expect(failure(outer)?.reason == "the notification's signedTransactionInfo is renewal-info, not a transaction")

        let transaction = jws(payload: #"{"transactionId":"2000000456789012","signedDate":1698148900000}"#)
        let swapped = jws(
            payload: #"{"notificationType":"DID_RENEW","data":{"signedRenewalInfo":""# + transaction + #""}}"#)
        #expect(failure(swapped)?.code == "bad-notification")
        #expect(failure(swapped)?.reason == "the notification's signedRenewalInfo is transaction, not renewal info")

        let notification = jws(payload: #"{"notificationType":"TEST"}"#)
        let nestedTwice = jws(
            payload: #"{"notificationType":"DID_RENEW","data":{"signedRenewalInfo":""# + notification + #""}}"#)
        #expect(failure(nestedTwice)?.code == "bad-notification", "no notification inside a notification")
    }
}
