import IAPBasics
import Testing

@Suite("Strict base64")
struct Base64Tests {
    @Test("wrapped lines and padding decode; the round trip is exact")
    func roundTrip() throws {
        let bytes: [UInt8] = Array(0...255)
        let text = Base64.encode(bytes)
        var wrapped = ""
        for (i, c) in text.enumerated() {
            if i > 0, i % 64 == 0 { wrapped += "\r\n" }
            wrapped.append(c)
        }
        #expect(try Base64.decode(wrapped) == bytes)
        #expect(try Base64.decode(Base64.encode([1, 2], alphabet: .url), alphabet: .url) == [1, 2])
    }

    @Test("encoding gives RFC 4648's test vectors, padded in the standard alphabet and not in the URL one")
    func vectors() {
        let vectors = [
            ("", "", ""), ("f", "Zg==", "Zg"), ("fo", "Zm8=", "Zm8"), ("foo", "Zm9v", "Zm9v"),
            ("foob", "Zm9vYg==", "Zm9vYg"), ("fooba", "Zm9vYmE=", "Zm9vYmE"), ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
        ]
        for (plain, standard, url) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == standard)
            #expect(Base64.encode(Array(plain.utf8), alphabet: .url) == url)
        }
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.encode([0xFB, 0xFF], alphabet: .url) == "-_8")
    }

    @Test("a byte outside the alphabet is an error at its offset")
    func badByte() {
        #expect(throws: DecodeError("bad-base64", "byte 0x2a is not base64", at: 4)) {
            try Base64.decode("QUJD*A==")
        }
        #expect(throws: DecodeError.self) { try Base64.decode("QUJDRA=x") }
        #expect(throws: DecodeError.self) { try Base64.decode("Q") }
        #expect(throws: DecodeError.self) { try Base64.decode("ab+/", alphabet: .url) }
    }

    @Test("decoding past the cap is refused before allocating")
    func cap() {
        #expect(throws: DecodeError.self) { try Base64.decode(String(repeating: "AAAA", count: 100), maxBytes: 10) }
    }
}

@Suite("Money")
struct DecimalAmountTests {
    @Test("amounts add up exactly and print with at least two decimals")
    func sums() throws {
        var total = DecimalAmount.zero
        for _ in 0..<10 { total = total + (try #require(DecimalAmount("0.1"))) }
        #expect(total.description == "1.00")
        #expect((try #require(DecimalAmount("4.99")) + (try #require(DecimalAmount("0.005")))).description == "4.995")
        #expect(DecimalAmount("12") == DecimalAmount("12.000"))
        for bad in [
            "", ".5", "5.", "1e3", "abc", "1.2.3", "1234567890123456", "-", "-.5", "--1", "1.1234567",
            "1234567890123", " 1", "1 ", "+1", "\u{663}",
        ] { #expect(DecimalAmount(bad) == nil) }
        #expect(DecimalAmount("-4.99")?.description == "-4.99")
        #expect(DecimalAmount("999999999999.999999")?.description == "999999999999.999999")
        #expect(DecimalAmount("0.000001")?.description == "0.000001")
    }
}

@Suite("Base64 fast paths")
struct Base64FastPathTests {
    @Test("a bad byte is reported at its own offset wherever it stands")
    func everyOffset() throws {
        let good = Base64.encode(Array(0..<60))
        for k in 0..<good.utf8.count - 2 {
            var bytes = Array(good.utf8)
            bytes[k] = 0x2A  // '*'
            #expect(throws: DecodeError("bad-base64", "byte 0x2a is not base64", at: k)) { try Base64.decode(bytes) }
        }
    }

    @Test("every length round-trips in both alphabets, to the exact byte count")
    func everyLength() throws {
        for length in 0..<100 {
            let data: [UInt8] = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
            #expect(try Base64.decode(Base64.encode(data)) == data)
            #expect(try Base64.decode(Base64.encode(data, alphabet: .url), alphabet: .url) == data)
        }
    }

    @Test("line breaks anywhere decode to the same bytes")
    func breaks() throws {
        let data: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let text = Array(Base64.encode(data).utf8)
        for k in stride(from: 1, to: text.count, by: 7) {
            #expect(try Base64.decode(Array(text[..<k]) + [0x0D, 0x0A] + Array(text[k...])) == data)
        }
    }
}
