/// Writes ASN.1 (X.690): DER, or BER with indefinite lengths on every constructed value,
/// as Xcode writes StoreKit Testing receipts.
public struct DERWriter {
    public enum Lengths: Sendable {
        /// DER: definite lengths, SET OF elements sorted by their encoding.
        case definite
        /// BER as Xcode writes it: constructed values open with `0x80` and close with `00 00`;
        /// SET OF elements stay in the order given.
        case indefinite
    }

    public private(set) var bytes: [UInt8] = []
    public let lengths: Lengths

    public init(lengths: Lengths = .definite) {
        self.lengths = lengths
    }

    /// Identifier octets of the values builders write.
    public static let sequence: UInt8 = 0x30
    public static let set: UInt8 = 0x31
    public static func contextSpecific(_ number: UInt8) -> UInt8 { 0xA0 | number }

    public mutating func writeConstructed(_ identifier: UInt8, _ body: (inout DERWriter) throws -> Void) rethrows {
        var inner = DERWriter(lengths: lengths)
        try body(&inner)
        switch lengths {
        case .definite:
            writeDefinite(identifier, inner.bytes)
        case .indefinite:
            bytes.append(identifier)
            bytes.append(0x80)
            bytes.append(contentsOf: inner.bytes)
            bytes.append(contentsOf: [0x00, 0x00])
        }
    }

    /// Identifier, definite length, contents.
    public mutating func writeDefinite(_ identifier: UInt8, _ content: [UInt8]) {
        bytes.append(identifier)
        bytes.append(contentsOf: DERWriter.length(content.count))
        bytes.append(contentsOf: content)
    }

    /// An element already encoded (a certificate, a Name).
    public mutating func writeRaw(_ element: [UInt8]) {
        bytes.append(contentsOf: element)
    }

    /// INTEGER, minimal two's complement.
    public mutating func writeInteger(_ value: Int64) {
        var content: [UInt8] = []
        var v = value
        repeat {
            content.insert(UInt8(truncatingIfNeeded: v), at: 0)
            v >>= 8
        } while !((v == 0 && content[0] & 0x80 == 0) || (v == -1 && content[0] & 0x80 != 0))
        writeDefinite(0x02, content)
    }

    public mutating func writeNull() {
        writeDefinite(0x05, [])
    }

    public mutating func writeUTF8String(_ text: String) {
        writeDefinite(0x0C, Array(text.utf8))
    }

    public mutating func writeIA5String(_ text: String) {
        writeDefinite(0x16, Array(text.utf8))
    }

    public mutating func writeOctetString(_ octets: [UInt8]) {
        writeDefinite(0x04, octets)
    }

    /// A constructed OCTET STRING of primitive segments (BER; Xcode wraps the payload so).
    public mutating func writeSegmentedOctetString(_ octets: [UInt8], segmentLength: Int) {
        bytes.append(0x24)
        bytes.append(0x80)
        var start = 0
        repeat {
            let end = min(octets.count, start + max(1, segmentLength))
            writeDefinite(0x04, Array(octets[start..<end]))
            start = end
        } while start < octets.count
        bytes.append(contentsOf: [0x00, 0x00])
    }

    /// OBJECT IDENTIFIER from dotted text (`1.2.840.113549.1.7.2`).
    public mutating func writeObjectIdentifier(_ dotted: String) throws {
        var arcs: [UInt64] = []
        for part in dotted.split(separator: ".", omittingEmptySubsequences: false) {
            guard let arc = UInt64(part) else {
                throw ReceiptBuildError(reason: "'\(dotted)' is not a dotted object identifier")
            }
            arcs.append(arc)
        }
        guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40, arcs[1] <= UInt64.max - 80 else {
            throw ReceiptBuildError(reason: "'\(dotted)' is not a dotted object identifier")
        }
        var content: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            // Base 128, most significant group first, bit 8 set on all but the last.
            var groups: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            content.append(contentsOf: groups)
        }
        writeDefinite(0x06, content)
    }

    /// SET OF the given encoded elements: sorted in DER (X.690 §11.6), as given in BER.
    public mutating func writeSetOf(_ elements: [[UInt8]]) {
        let ordered = lengths == .definite ? elements.sorted { $0.lexicographicallyPrecedes($1) } : elements
        writeConstructed(DERWriter.set) { set in
            for element in ordered { set.writeRaw(element) }
        }
    }

    /// Definite length octets: short form below 128, else 0x80 + count ‖ big-endian value.
    public static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var value = count
        var octets: [UInt8] = []
        while value > 0 {
            octets.insert(UInt8(truncatingIfNeeded: value), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}

/// A receipt builder was given something it cannot write (a malformed OID, a missing certificate).
public struct ReceiptBuildError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
