import IAPBasics

/// Primitive values, read from an element's content octets in place.
extension ASN1Reader {
    /// X.690 §8.3: INTEGER is big-endian two's complement, at least one octet. Redundant
    /// leading sign octets are tolerated; a value beyond Int64 is an error.
    @inline(__always)
    public func int64(_ element: ASN1Element) throws(DecodeError) -> Int64 {
        try checkPrimitive(element, .integer)
        let octets = content(of: element)
        guard let first = octets.first else {
            throw DecodeError("bad-integer", "INTEGER with no content octets", at: element.start)
        }
        var value: Int64 = first & 0x80 != 0 ? -1 : 0
        for octet in octets {
            // Shifting left by 8 keeps the value only if its top 9 bits are all sign.
            guard value >> 55 == 0 || value >> 55 == -1 else {
                throw DecodeError(
                    "integer-overflow", "INTEGER of \(octets.count) octets does not fit in 64 bits",
                    at: element.start)
            }
            value = value << 8 | Int64(octet)
        }
        return value
    }

    @inline(__always)
    public mutating func readInt64() throws(DecodeError) -> Int64 {
        try int64(read(.integer))
    }

    /// An INTEGER's content octets as written (certificate serial numbers exceed 64 bits).
    public func integerBytes(_ element: ASN1Element) throws(DecodeError) -> Slice<UnsafeRawBufferPointer> {
        try checkPrimitive(element, .integer)
        guard element.contentStart < element.contentEnd else {
            throw DecodeError("bad-integer", "INTEGER with no content octets", at: element.start)
        }
        return content(of: element)
    }

    /// X.690 §8.19: subidentifiers in base 128, bit 8 set on all but the last octet of each,
    /// no leading 0x80; the first subidentifier packs the first two arcs as 40·a + b.
    public func objectIdentifier(_ element: ASN1Element) throws(DecodeError) -> String {
        try checkPrimitive(element, .objectIdentifier)
        let octets = content(of: element)
        guard !octets.isEmpty else {
            throw DecodeError("bad-oid", "OBJECT IDENTIFIER with no content octets", at: element.start)
        }
        for known in ASN1Reader.knownObjectIdentifiers where known.encoding.elementsEqual(octets) {
            return known.text
        }
        var text = ""
        var value: UInt64 = 0
        var startOfSubidentifier = true
        var index = element.contentStart
        for octet in octets {
            guard !(startOfSubidentifier && octet == 0x80) else {
                throw DecodeError("bad-oid", "OBJECT IDENTIFIER subidentifier starts with a padding octet", at: index)
            }
            guard value <= UInt64.max >> 7 else {
                throw DecodeError("oid-overflow", "OBJECT IDENTIFIER arc does not fit in 64 bits", at: index)
            }
            value = value << 7 | UInt64(octet & 0x7F)
            startOfSubidentifier = octet & 0x80 == 0
            if startOfSubidentifier {
                if text.isEmpty {
                    let first: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
                    text = "\(first).\(value - first * 40)"
                } else {
                    text += ".\(value)"
                }
                value = 0
            }
            index += 1
        }
        guard startOfSubidentifier else {
            throw DecodeError("bad-oid", "OBJECT IDENTIFIER ends inside a subidentifier", at: element.contentEnd)
        }
        return text
    }

    /// Every receipt names these; matching their encodings spares building the text.
    private static let knownObjectIdentifiers: [(encoding: [UInt8], text: String)] = [
        ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02], "1.2.840.113549.1.7.2"),
        ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01], "1.2.840.113549.1.7.1"),
        ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01], "1.2.840.113549.1.1.1"),
        ([0x2B, 0x0E, 0x03, 0x02, 0x1A], "1.3.14.3.2.26"),
        ([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01], "2.16.840.1.101.3.4.2.1"),
    ]

    public mutating func readObjectIdentifier() throws(DecodeError) -> String {
        try objectIdentifier(read(.objectIdentifier))
    }

    /// UTF8String (validated), IA5String (ASCII) or PrintableString (X.680 §41.4 letters,
    /// digits and ` '()+,-./:=?`).
    public func string(_ element: ASN1Element) throws(DecodeError) -> String {
        let octets = try stringOctets(element)
        let contiguous = UnsafeRawBufferPointer(rebasing: octets).assumingMemoryBound(to: UInt8.self)
        if element.tag == .utf8String, !contiguous.allSatisfy({ $0 < 0x80 }) {
            guard let text = String(validating: contiguous, as: UTF8.self) else {
                throw DecodeError("bad-string", "UTF8String holds invalid UTF-8", at: element.contentStart)
            }
            return text
        }
        return String(decoding: contiguous, as: UTF8.self)
    }

    /// The content octets of a string element after checking its character set; for a
    /// UTF8String the caller validates (dates go straight to the timestamp parser).
    @inline(__always)
    public func stringOctets(_ element: ASN1Element) throws(DecodeError) -> Slice<UnsafeRawBufferPointer> {
        let octets = content(of: element)
        switch element.tag {
        case .utf8String:
            return octets
        case .ia5String:
            if let bad = octets.firstIndex(where: { $0 >= 0x80 }) {
                throw DecodeError("bad-string", "IA5String holds a non-ASCII byte", at: bad)
            }
            return octets
        case .printableString:
            if let bad = octets.firstIndex(where: { !ASN1Reader.isPrintable($0) }) {
                throw DecodeError("bad-string", "PrintableString holds a byte outside its character set", at: bad)
            }
            return octets
        default:
            throw DecodeError("unexpected-tag", "expected a string, found \(element.tag)", at: element.start)
        }
    }

    private static func isPrintable(_ c: UInt8) -> Bool {
        switch c {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39: return true
        case 0x20, 0x27, 0x28, 0x29, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x3A, 0x3D, 0x3F: return true
        default: return false
        }
    }

    @inline(__always)
    private func checkPrimitive(_ element: ASN1Element, _ tag: ASN1Tag) throws(DecodeError) {
        guard element.tag == tag else {
            throw DecodeError("unexpected-tag", "expected \(tag), found \(element.tag)", at: element.start)
        }
    }
}
