/// The parts of a certificate name the store certificates use
/// (`C=US, O=Apple Inc., OU=Apple Certification Authority, CN=Apple Root CA`).
public struct DistinguishedName: Sendable, Equatable {
    public var commonName: String
    public var organization: String?
    public var organizationalUnit: String?
    /// Two-letter country code.
    public var country: String?

    public init(
        commonName: String, organization: String? = nil, organizationalUnit: String? = nil, country: String? = nil
    ) {
        self.commonName = commonName
        self.organization = organization
        self.organizationalUnit = organizationalUnit
        self.country = country
    }

    /// `(short name, value)` in the order certificates list them, most general first.
    var attributes: [(String, String)] {
        var out: [(String, String)] = []
        if let country { out.append(("C", country)) }
        if let organization { out.append(("O", organization)) }
        if let organizationalUnit { out.append(("OU", organizationalUnit)) }
        out.append(("CN", commonName))
        return out
    }
}
