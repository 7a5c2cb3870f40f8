/// An ASN.1 identifier: class, primitive or constructed, and tag number (X.690 §8.1.2).
public struct ASN1Tag: Sendable, Hashable, CustomStringConvertible {
    public enum TagClass: UInt8, Sendable {
        case universal = 0
        case application = 1
        case contextSpecific = 2
        case `private` = 3
    }

    public var tagClass: TagClass
    public var isConstructed: Bool
    public var number: UInt32

    public init(_ tagClass: TagClass, constructed: Bool, number: UInt32) {
        self.tagClass = tagClass
        self.isConstructed = constructed
        self.number = number
    }

    /// The tag of a one-octet identifier (for a high tag number, its class and form only).
    @inline(__always)
    init(identifier: UInt8) {
        switch identifier >> 6 {
        case 0: tagClass = .universal
        case 1: tagClass = .application
        case 2: tagClass = .contextSpecific
        default: tagClass = .private
        }
        isConstructed = identifier & 0x20 != 0
        number = UInt32(identifier & 0x1F)
    }

    /// Universal tags this project reads.
    public static let endOfContents = ASN1Tag(.universal, constructed: false, number: 0)
    public static let boolean = ASN1Tag(.universal, constructed: false, number: 1)
    public static let integer = ASN1Tag(.universal, constructed: false, number: 2)
    public static let octetString = ASN1Tag(.universal, constructed: false, number: 4)
    public static let constructedOctetString = ASN1Tag(.universal, constructed: true, number: 4)
    public static let null = ASN1Tag(.universal, constructed: false, number: 5)
    public static let objectIdentifier = ASN1Tag(.universal, constructed: false, number: 6)
    public static let utf8String = ASN1Tag(.universal, constructed: false, number: 12)
    public static let printableString = ASN1Tag(.universal, constructed: false, number: 19)
    public static let ia5String = ASN1Tag(.universal, constructed: false, number: 22)
    public static let sequence = ASN1Tag(.universal, constructed: true, number: 16)
    public static let set = ASN1Tag(.universal, constructed: true, number: 17)

    /// `[n]` with the constructed bit as given (EXPLICIT tags and IMPLICIT SETs are constructed).
    public static func contextSpecific(_ number: UInt32, constructed: Bool = true) -> ASN1Tag {
        ASN1Tag(.contextSpecific, constructed: constructed, number: number)
    }

    public var description: String {
        switch (tagClass, number) {
        case (.universal, 0): return "end-of-contents"
        case (.universal, 1): return "BOOLEAN"
        case (.universal, 2): return "INTEGER"
        case (.universal, 3): return "BIT STRING"
        case (.universal, 4): return isConstructed ? "constructed OCTET STRING" : "OCTET STRING"
        case (.universal, 5): return "NULL"
        case (.universal, 6): return "OBJECT IDENTIFIER"
        case (.universal, 12): return "UTF8String"
        case (.universal, 16): return "SEQUENCE"
        case (.universal, 17): return "SET"
        case (.universal, 19): return "PrintableString"
        case (.universal, 22): return "IA5String"
        case (.universal, _): return "UNIVERSAL \(number)"
        case (.application, _): return "[APPLICATION \(number)]"
        case (.contextSpecific, _): return "[\(number)]"
        case (.private, _): return "[PRIVATE \(number)]"
        }
    }
}

/// One element as located in its buffer. For an indefinite length, `contentEnd` is where its
/// end-of-contents octets start and `end` is after them.
public struct ASN1Element: Sendable, Equatable {
    public var tag: ASN1Tag
    /// Offset of the identifier octet.
    public var start: Int
    public var contentStart: Int
    public var contentEnd: Int
    /// Offset just past the element.
    public var end: Int

    public var contentRange: Range<Int> { contentStart..<contentEnd }
    public var isIndefinite: Bool { end != contentEnd }
}
