import IAPBasics
import ReceiptFormats
import Testing

/// Bytes from spaced hex: `"30 03 02 01 05"`.
private func bytes(_ hex: String) -> [UInt8] {
    hex.split(separator: " ").compactMap { UInt8($0, radix: 16) }
}

private func failure(
    _ input: [UInt8], limits: Limits = .standard,
    _ body: (inout ASN1Reader) throws(DecodeError) -> Void
) -> DecodeError? {
    do {
        try ASN1Reader.withReader(over: input, limits: limits, body)
        return nil
    } catch {
        return error
    }
}

/// Reads every element at every depth, as a decoder walking unknown input would.
private func walk(_ reader: inout ASN1Reader) throws(DecodeError) {
    while !reader.isAtEnd {
        let element = try reader.readElement()
        if element.tag.isConstructed {
            var inner = try reader.contents(of: element)
            try walk(&inner)
        }
    }
}

@Suite("ASN.1 BER reader")
struct ASN1ReaderTests {
    @Test("a nested structure reads back value by value and nothing is left over")
    func nestedDefinite() throws {
        // SEQUENCE { INTEGER 5, OCTET STRING 'AB', SET { } }
        let input = bytes("30 09 02 01 05 04 02 41 42 31 00")
        try ASN1Reader.withReader(over: input) { (reader) throws(DecodeError) in
            try reader.readConstructed(.sequence) { (sequence) throws(DecodeError) in
                #expect(try sequence.readInt64() == 5)
                #expect(try sequence.readOctets().bytes == [0x41, 0x42])
                let set = try sequence.read(.set)
                #expect(set.contentStart == set.contentEnd)
            }
            try reader.finish()
        }
    }

    @Test("long-form lengths are read")
    func longFormLength() throws {
        let content = [UInt8](repeating: 7, count: 300)
        let input = bytes("04 82 01 2C") + content
        try ASN1Reader.withReader(over: input) { (reader) throws(DecodeError) in
            #expect(try reader.readOctets().bytes == content)
            try reader.finish()
        }
    }

    @Test("high tag numbers and their classes are decoded")
    func highTagNumbers() throws {
        // [APPLICATION 1000] constructed, empty: 0x7F, 1000 = 0x87 0x68
        try ASN1Reader.withReader(over: bytes("7F 87 68 00")) { (reader) throws(DecodeError) in
            let element = try reader.readElement()
            #expect(element.tag == ASN1Tag(.application, constructed: true, number: 1000))
        }
        #expect(failure(bytes("1F 80 01 00")) { (r) throws(DecodeError) in _ = try r.readElement() }?.code == "bad-tag")
        #expect(
            failure(bytes("1F FF FF FF FF 7F 00")) { (r) throws(DecodeError) in _ = try r.readElement() }?.code
                == "bad-tag")
        #expect(failure(bytes("1F 87")) { (r) throws(DecodeError) in _ = try r.readElement() }?.code == "truncated")
    }

    @Test("a length longer than the data is an error at the length octets")
    func lengthTooLong() {
        let error = failure(bytes("30 05 02 01 05")) { (r) throws(DecodeError) in _ = try r.readElement() }
        #expect(error?.code == "truncated")
        #expect(error?.offset == 1)
        let huge = failure(bytes("30 84 FF FF FF FF 00")) { (r) throws(DecodeError) in _ = try r.readElement() }
        #expect(huge?.code == "truncated")
        #expect(huge?.offset == 1)
        let nineOctets = failure(bytes("04 89 01 00 00 00 00 00 00 00 00")) { (r) throws(DecodeError) in
            _ = try r.readElement()
        }
        #expect(nineOctets?.code == "bad-length")
    }

    @Test("a child whose length runs past its parent is a lying length, with its offset")
    func childOverrunsParent() {
        // SEQUENCE (3 bytes) { OCTET STRING claiming 5 } followed by more bytes
        let input = bytes("30 03 04 05 41 42 43 44 45")
        let error = failure(input) { (reader) throws(DecodeError) in try walk(&reader) }
        #expect(error?.code == "bad-length")
        #expect(error?.offset == 3)
    }

    @Test("indefinite lengths end at their end-of-contents, nested ones too")
    func indefiniteLengths() throws {
        // SEQUENCE (indefinite) { SEQUENCE (indefinite) { INTEGER 1 } INTEGER 2 }
        let input = bytes("30 80 30 80 02 01 01 00 00 02 01 02 00 00")
        try ASN1Reader.withReader(over: input) { (reader) throws(DecodeError) in
            let outer = try reader.read(.sequence)
            #expect(outer.isIndefinite)
            #expect(outer.end == input.count)
            var sequence = try reader.contents(of: outer)
            try sequence.readConstructed(.sequence) { (inner) throws(DecodeError) in
                #expect(try inner.readInt64() == 1)
            }
            #expect(try sequence.readInt64() == 2)
            try sequence.finish()
            try reader.finish()
        }
    }

    @Test("an indefinite length without end-of-contents is an error, not a hang")
    func missingEndOfContents() {
        let error = failure(bytes("30 80 02 01 01 02 01 02")) { (r) throws(DecodeError) in _ = try r.readElement() }
        #expect(error?.code == "missing-end-of-contents")
        #expect(error?.offset == 8)
        let primitive = failure(bytes("04 80 41 00 00")) { (r) throws(DecodeError) in _ = try r.readElement() }
        #expect(primitive?.code == "bad-length")
        let stray = failure(bytes("00 00")) { (r) throws(DecodeError) in _ = try r.readElement() }
        #expect(stray?.code == "unexpected-end-of-contents")
    }

    @Test("a million levels of nesting fail fast at the depth cap")
    func deepNesting() {
        let depth = 1_000_000
        let indefinite = (0..<2 * depth).map { $0 % 2 == 0 ? UInt8(0x30) : UInt8(0x80) }
        let error = failure(indefinite) { (reader) throws(DecodeError) in try walk(&reader) }
        #expect(error?.code == "too-deep")

        // Definite: each level's length counts everything inside it (4-octet long form).
        var definite: [UInt8] = []
        definite.reserveCapacity(6 * depth)
        for level in 0..<depth {
            let inside = 6 * (depth - level - 1)
            definite += [
                0x30, 0x84, UInt8(inside >> 24), UInt8(inside >> 16 & 0xFF), UInt8(inside >> 8 & 0xFF),
                UInt8(inside & 0xFF),
            ]
        }
        let definiteError = failure(definite) { (reader) throws(DecodeError) in try walk(&reader) }
        #expect(definiteError?.code == "too-deep")
        #expect(definiteError?.offset == 6 * Limits.standard.maxDepth)
    }

    @Test("more elements in one value than the cap allows is an error")
    func elementCap() {
        var limits = Limits.standard
        limits.maxElements = 100
        let set = bytes("31 82 01 2C") + (0..<300).map { $0 % 2 == 0 ? UInt8(0x05) : UInt8(0x00) }
        let error = failure(set, limits: limits) { (reader) throws(DecodeError) in try walk(&reader) }
        #expect(error?.code == "too-many-elements")
        #expect(error?.offset == 4 + 2 * 100)
    }

    @Test("leftover bytes after the last element are reported where they start")
    func trailingBytes() {
        let error = failure(bytes("05 00 FF")) { (reader) throws(DecodeError) in
            _ = try reader.read(.null)
            try reader.finish()
        }
        #expect(error?.code == "trailing-bytes")
        #expect(error?.offset == 2)
    }

    @Test("INTEGERs read as Int64 across the whole range, and past it they fail")
    func integers() throws {
        let cases: [(String, Int64)] = [
            ("02 01 00", 0), ("02 01 7F", 127), ("02 02 00 80", 128), ("02 01 FF", -1), ("02 02 FF 7F", -129),
            ("02 08 7F FF FF FF FF FF FF FF", .max), ("02 08 80 00 00 00 00 00 00 00", .min),
            ("02 03 00 00 05", 5),
        ]
        for (hex, value) in cases {
            try ASN1Reader.withReader(over: bytes(hex)) { (reader) throws(DecodeError) in
                #expect(try reader.readInt64() == value, "\(hex)")
            }
        }
        let overflow = failure(bytes("02 09 00 80 00 00 00 00 00 00 00")) { (r) throws(DecodeError) in
            _ = try r.readInt64()
        }
        #expect(overflow?.code == "integer-overflow")
        let empty = failure(bytes("02 00")) { (r) throws(DecodeError) in _ = try r.readInt64() }
        #expect(empty?.code == "bad-integer")
        let wrongTag = failure(bytes("04 01 00")) { (r) throws(DecodeError) in _ = try r.readInt64() }
        #expect(wrongTag?.code == "unexpected-tag")
    }

    @Test("a large INTEGER is available as its raw octets")
    func integerBytes() throws {
        let serial = bytes("02 11 00 F3 1B 2C 3D 4E 5F 60 71 82 93 A4 B5 C6 D7 E8 F9")
        try ASN1Reader.withReader(over: serial) { (reader) throws(DecodeError) in
            let element = try reader.read(.integer)
            #expect(Array(try reader.integerBytes(element)) == Array(serial.dropFirst(2)))
        }
    }

    @Test("OBJECT IDENTIFIERs decode to dotted text; overflow and truncation fail")
    func objectIdentifiers() throws {
        let cases: [(String, String)] = [
            ("06 09 2A 86 48 86 F7 0D 01 07 02", "1.2.840.113549.1.7.2"),
            ("06 0A 2A 86 48 86 F7 63 64 06 0B 01", "1.2.840.113635.100.6.11.1"),
            ("06 03 55 04 03", "2.5.4.3"),
            ("06 02 88 37", "2.999"),
            ("06 01 27", "0.39"),
        ]
        for (hex, text) in cases {
            try ASN1Reader.withReader(over: bytes(hex)) { (reader) throws(DecodeError) in
                #expect(try reader.readObjectIdentifier() == text)
            }
        }
        let overflow = failure(bytes("06 0C 2A FF FF FF FF FF FF FF FF FF FF 7F")) { (r) throws(DecodeError) in
            _ = try r.readObjectIdentifier()
        }
        #expect(overflow?.code == "oid-overflow")
        let truncated = failure(bytes("06 02 2A 86")) { (r) throws(DecodeError) in _ = try r.readObjectIdentifier() }
        #expect(truncated?.code == "bad-oid")
        let padded = failure(bytes("06 03 2A 80 01")) { (r) throws(DecodeError) in _ = try r.readObjectIdentifier() }
        #expect(padded?.code == "bad-oid")
        #expect(padded?.offset == 3)
    }

    @Test("strings are checked against their character sets")
    func strings() throws {
        try ASN1Reader.withReader(over: bytes("0C 03 C3 A9 74")) { (reader) throws(DecodeError) in
            #expect(try reader.string(reader.readElement()) == "ét")
        }
        try ASN1Reader.withReader(over: bytes("13 05 41 2D 31 3F 20")) { (reader) throws(DecodeError) in
            #expect(try reader.string(reader.readElement()) == "A-1? ")
        }
        let badUTF8 = failure(bytes("0C 02 C3 28")) { (r) throws(DecodeError) in _ = try r.string(r.readElement()) }
        #expect(badUTF8?.code == "bad-string")
        #expect(badUTF8?.offset == 2)
        let overlong = failure(bytes("0C 02 C0 AF")) { (r) throws(DecodeError) in _ = try r.string(r.readElement()) }
        #expect(overlong?.code == "bad-string")
        let nonASCII = failure(bytes("16 02 41 E9")) { (r) throws(DecodeError) in _ = try r.string(r.readElement()) }
        #expect(nonASCII?.code == "bad-string")
        #expect(nonASCII?.offset == 3)
        let notPrintable = failure(bytes("13 01 40")) { (r) throws(DecodeError) in _ = try r.string(r.readElement()) }
        #expect(notPrintable?.code == "bad-string")
        let notAString = failure(bytes("02 01 00")) { (r) throws(DecodeError) in _ = try r.string(r.readElement()) }
        #expect(notAString?.code == "unexpected-tag")
    }

    @Test("a constructed OCTET STRING is joined, and errors inside map back to the source")
    func constructedOctetString() throws {
        // OCTET STRING (constructed, indefinite) { 'AB', OCTET STRING (constructed) { 'C' }, 'D' }
        let input = bytes("24 80 04 02 41 42 24 03 04 01 43 04 01 44 00 00")
        try ASN1Reader.withReader(over: input) { (reader) throws(DecodeError) in
            let octets = try reader.readOctets()
            #expect(octets.bytes == Array("ABCD".utf8))
            #expect(octets.sourceOffset(of: 0) == 4)
            #expect(octets.sourceOffset(of: 2) == 10)
            #expect(octets.sourceOffset(of: 3) == 13)
        }
        let wrongSegment = failure(bytes("24 03 02 01 00")) { (r) throws(DecodeError) in _ = try r.readOctets() }
        #expect(wrongSegment?.code == "unexpected-tag")

        // A DER value split across segments: INTEGER 5 then trailing garbage in the second segment.
        let split = bytes("24 09 04 02 02 01 04 03 05 FF FF")
        let error = failure(split) { (reader) throws(DecodeError) in
            let element = try reader.readElement()
            try reader.readEncapsulated(in: element) { (inner) throws(DecodeError) in
                #expect(try inner.readInt64() == 5)
            }
        }
        #expect(error?.code == "trailing-bytes")
        #expect(error?.offset == 9)
    }

    @Test("an element's raw bytes are kept exactly")
    func rawBytes() throws {
        let certificate = bytes("30 05 02 01 01 05 00")
        let input = bytes("A0 07") + certificate + bytes("05 00")
        try ASN1Reader.withReader(over: input) { (reader) throws(DecodeError) in
            var set = try reader.contents(of: reader.read(.contextSpecific(0)))
            #expect(set.rawBytes(of: try set.read(.sequence)) == certificate)
        }
    }
}
