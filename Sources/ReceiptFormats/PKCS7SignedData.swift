import IAPBasics

/// PKCS#7 / CMS SignedData, as Apple app receipts carry it: the content embedded, its
/// certificates and one signer, kept as the bytes a signature check needs.
public enum PKCS7 {
    public static let signedDataOID = "1.2.840.113549.1.7.2"
    public static let dataOID = "1.2.840.113549.1.7.1"
    public static let rsaEncryptionOID = "1.2.840.113549.1.1.1"

    /// A SignedData, the eContent with its map back to the source, and how deep the
    /// eContent lay (payload readers continue from there).
    public struct Parsed: Sendable {
        public var signed: PKCS7Signed
        public var content: ASN1Octets
        public var contentDepth: Int
    }

    /// Parses a ContentInfo holding SignedData; nothing may follow it.
    public static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(DecodeError) -> Parsed {
        guard bytes.count <= limits.maxPayloadBytes else {
            throw DecodeError("too-large", "\(bytes.count) bytes exceed the cap of \(limits.maxPayloadBytes)", at: 0)
        }
        return try ASN1Reader.withReader(over: bytes, limits: limits) { (reader) throws(DecodeError) -> Parsed in
            guard try reader.peekTag() == .sequence else {
                throw DecodeError("not-pkcs7", "a PKCS#7 ContentInfo starts with a SEQUENCE", at: 0)
            }
            let parsed = try readContentInfo(&reader)
            try reader.finish()
            return parsed
        }
    }

    // RFC 5652 §3 (RFC 2315 §7):
    // ContentInfo ::= SEQUENCE {
    //   contentType ContentType,                    -- 1.2.840.113549.1.7.2 signedData
    //   content [0] EXPLICIT ANY DEFINED BY contentType }
    private static func readContentInfo(_ reader: inout ASN1Reader) throws(DecodeError) -> Parsed {
        try reader.readConstructed(.sequence) { (info) throws(DecodeError) -> Parsed in
            guard try info.peekTag() == .objectIdentifier else {
                throw DecodeError("not-pkcs7", "the data is ASN.1 but not a PKCS#7 ContentInfo", at: info.position)
            }
            let typeElement = try info.read(.objectIdentifier)
            let contentType = try info.objectIdentifier(typeElement)
            guard contentType == signedDataOID else {
                throw DecodeError(
                    "not-signed-data", "content type \(contentType) is not PKCS#7 signedData",
                    at: typeElement.start)
            }
            return try info.readConstructed(.contextSpecific(0)) { (explicit) throws(DecodeError) -> Parsed in
                try explicit.readConstructed(.sequence) { (signedData) throws(DecodeError) -> Parsed in
                    try readSignedData(&signedData)
                }
            }
        }
    }

    // SignedData ::= SEQUENCE {
    //   version CMSVersion,                          -- 1 on receipts
    //   digestAlgorithms SET OF DigestAlgorithmIdentifier,
    //   encapContentInfo EncapsulatedContentInfo,
    //   certificates [0] IMPLICIT CertificateSet OPTIONAL,
    //   crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
    //   signerInfos SET OF SignerInfo }
    private static func readSignedData(_ reader: inout ASN1Reader) throws(DecodeError) -> Parsed {
        _ = try reader.readInt64()
        try reader.readConstructed(.set) { (algorithms) throws(DecodeError) in
            while !algorithms.isAtEnd { _ = try readAlgorithmIdentifier(&algorithms) }
        }
        let (content, contentDepth) = try readEncapsulatedContent(&reader)
        var certificates: [[UInt8]] = []
        if let set = try reader.readOptional(.contextSpecific(0)) {
            var inner = try reader.contents(of: set)
            while !inner.isAtEnd {
                // CertificateChoices: only the X.509 `Certificate` (a SEQUENCE) is kept.
                let element = try inner.readElement()
                if element.tag == .sequence { certificates.append(inner.rawBytes(of: element)) }
            }
        }
        _ = try reader.readOptional(.contextSpecific(1))
        let signerSetStart = reader.position
        let signer = try reader.readConstructed(.set) { (signers) throws(DecodeError) -> Signer in
            guard !signers.isAtEnd else {
                throw DecodeError("no-signer", "the SignedData has no SignerInfo", at: signerSetStart)
            }
            let signer = try readSignerInfo(&signers)
            guard signers.isAtEnd else {
                throw DecodeError("multiple-signers", "a receipt has exactly one SignerInfo", at: signers.position)
            }
            return signer
        }
        let signed = PKCS7Signed(
            certificates: certificates, signerIssuer: signer.issuer, signerSerial: signer.serial,
            digestAlgorithm: signer.digestAlgorithm, signatureAlgorithm: signer.signatureAlgorithm,
            signedAttributes: signer.signedAttributes, signature: signer.signature,
            content: content.bytes)
        return Parsed(signed: signed, content: content, contentDepth: contentDepth)
    }

    // EncapsulatedContentInfo ::= SEQUENCE {
    //   eContentType ContentType,                    -- 1.2.840.113549.1.7.1 data
    //   eContent [0] EXPLICIT OCTET STRING OPTIONAL } -- constructed and indefinite from Xcode
    private static func readEncapsulatedContent(_ reader: inout ASN1Reader) throws(DecodeError) -> (ASN1Octets, Int) {
        try reader.readConstructed(.sequence) { (encap) throws(DecodeError) -> (ASN1Octets, Int) in
            let typeElement = try encap.read(.objectIdentifier)
            let contentType = try encap.objectIdentifier(typeElement)
            guard contentType == dataOID else {
                throw DecodeError(
                    "not-data-content", "eContentType \(contentType) is not pkcs7-data", at: typeElement.start)
            }
            guard let explicit = try encap.readOptional(.contextSpecific(0)) else {
                throw DecodeError(
                    "no-content", "the SignedData carries no content (detached signature)", at: encap.position)
            }
            var inner = try encap.contents(of: explicit)
            let octets = try inner.readOctets()
            try inner.finish()
            return (octets, inner.depth + 1)
        }
    }

    private struct Signer {
        var issuer: [UInt8]
        var serial: [UInt8]
        var digestAlgorithm: String
        var signedAttributes: [UInt8]?
        var signatureAlgorithm: String
        var signature: [UInt8]
    }

    // SignerInfo ::= SEQUENCE {
    //   version CMSVersion,
    //   sid SignerIdentifier,        -- IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber INTEGER }
    //   digestAlgorithm DigestAlgorithmIdentifier,
    //   signedAttrs [0] IMPLICIT SET OF Attribute OPTIONAL,
    //   signatureAlgorithm SignatureAlgorithmIdentifier,
    //   signature OCTET STRING,
    //   unsignedAttrs [1] IMPLICIT SET OF Attribute OPTIONAL }
    private static func readSignerInfo(_ reader: inout ASN1Reader) throws(DecodeError) -> Signer {
        try reader.readConstructed(.sequence) { (info) throws(DecodeError) -> Signer in
            _ = try info.readInt64()
            if try info.peekTag() == .contextSpecific(0, constructed: false) {
                throw DecodeError(
                    "unsupported-signer-id", "the signer is named by subject key identifier, not issuer and serial",
                    at: info.position)
            }
            let (issuer, serial) = try info.readConstructed(.sequence) {
                (sid) throws(DecodeError) -> ([UInt8], [UInt8]) in
                let name = try sid.read(.sequence)
                let serial = try sid.integerBytes(sid.read(.integer))
                return (sid.rawBytes(of: name), Array(serial))
            }
            let digestAlgorithm = try readAlgorithmIdentifier(&info)
            var signedAttributes: [UInt8]?
            if let attributes = try info.readOptional(.contextSpecific(0)) {
                // The signature covers them re-tagged as the SET OF they are (RFC 5652 §5.4).
                var der = info.rawBytes(of: attributes)
                der[0] = 0x31
                signedAttributes = der
            }
            let signatureAlgorithm = try readAlgorithmIdentifier(&info)
            let signature = try info.readOctets().bytes
            _ = try info.readOptional(.contextSpecific(1))
            return Signer(
                issuer: issuer, serial: serial, digestAlgorithm: digestAlgorithm,
                signedAttributes: signedAttributes, signatureAlgorithm: signatureAlgorithm, signature: signature)
        }
    }

    // AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }
    static func readAlgorithmIdentifier(_ reader: inout ASN1Reader) throws(DecodeError) -> String {
        try reader.readConstructed(.sequence) { (algorithm) throws(DecodeError) -> String in
            let oid = try algorithm.readObjectIdentifier()
            if !algorithm.isAtEnd { _ = try algorithm.readElement() }
            return oid
        }
    }
}
