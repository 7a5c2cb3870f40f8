import ReceiptVerification

/// How the Rules' trust is told to people: `rules check` lists it, every run names the stores
/// whose receipts it met without a way to check their signatures (fail closed: said, never
/// silent).
enum TrustLines {
    /// `rules check`: each Apple anchor by name and fingerprint, the Google packages, and a
    /// warning for each store nothing checks.
    static func check(_ trust: TrustSummary) -> [String] {
        var lines = [
            "  trust: \(trust.appleAnchors.count) Apple anchor(s), \(trust.googlePackages.count) Google key(s)"
        ]
        for a in trust.appleAnchors {
            lines.append("    Apple: \(a.commonName) (\(fileName(a.file)), SHA-256 \(a.sha256))")
        }
        for p in trust.googlePackages { lines.append("    Google: \(p)") }
        for store in trust.untrusted { lines.append("  warning: \(unverified(store))") }
        return lines
    }

    /// What is not checked for `store`, and how to change it.
    static func unverified(_ store: TrustSummary.Store) -> String {
        switch store {
        case .apple:
            return "no Apple anchor in trust/apple: App Store signatures are not checked "
                + "(Apple Root CA and Apple Root CA - G3, https://www.apple.com/certificateauthority/)"
        case .google:
            return "no Google Play key in trust/google: Google Play signatures are not checked "
                + "(one <package>.pem or .pub per app, from Play Console, Monetization setup > Licensing)"
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
