import IAPBasics

extension TestPKI {
    /// When a certificate is valid: tests move one window to get an intermediate that
    /// expired after signing, or a leaf used after it expired.
    public struct Window: Sendable, Equatable {
        public var notBefore: Timestamp
        public var notAfter: Timestamp

        public init(notBefore: Timestamp, notAfter: Timestamp) {
            self.notBefore = notBefore
            self.notAfter = notAfter
        }

        /// From two timestamps in any form `Timestamp.parse` reads; nil if either is unreadable.
        public init?(from notBefore: String, until notAfter: String) {
            guard let start = Timestamp.parse(notBefore), let end = Timestamp.parse(notAfter) else { return nil }
            self.init(notBefore: start, notAfter: end)
        }
    }

    /// The validity windows of every certificate in the world.
    public struct Validity: Sendable, Equatable {
        /// The RSA root and the EC root (G3).
        public var roots: Window
        /// WWDR (RSA) and WWDR G6 (EC).
        public var intermediates: Window
        /// The RSA receipt-signing leaf and the EC JWS-signing leaf (and their developer look-alikes).
        public var receiptLeaves: Window
        public var iTunesStoreCA: Window
        /// The iOS 6 receipt-signing leaf.
        public var legacyLeaf: Window
        /// Both self-signed "StoreKit Testing in Xcode" certificates.
        public var xcode: Window

        public init(
            roots: Window, intermediates: Window, receiptLeaves: Window, iTunesStoreCA: Window,
            legacyLeaf: Window, xcode: Window
        ) {
            self.roots = roots
            self.intermediates = intermediates
            self.receiptLeaves = receiptLeaves
            self.iTunesStoreCA = iTunesStoreCA
            self.legacyLeaf = legacyLeaf
            self.xcode = xcode
        }

        /// Wide windows, so any receipt dated 2010–2034 verifies: roots 2000–2045,
        /// intermediates 2005–2040, leaves 2010–2035, Xcode 2020–2040 (as Xcode's own).
        public static func standard() throws -> Validity {
            func window(_ from: String, _ until: String) throws -> Window {
                guard let window = Window(from: from, until: until) else {
                    throw TestPKIError("unreadable validity window \(from) … \(until)")
                }
                return window
            }
            return Validity(
                roots: try window("2000-01-01T00:00:00Z", "2045-01-01T00:00:00Z"),
                intermediates: try window("2005-01-01T00:00:00Z", "2040-01-01T00:00:00Z"),
                receiptLeaves: try window("2010-01-01T00:00:00Z", "2035-01-01T00:00:00Z"),
                iTunesStoreCA: try window("2005-01-01T00:00:00Z", "2040-01-01T00:00:00Z"),
                legacyLeaf: try window("2010-01-01T00:00:00Z", "2035-01-01T00:00:00Z"),
                xcode: try window("2020-01-01T00:00:00Z", "2040-01-01T00:00:00Z"))
        }
    }
}

/// Why a test PKI could not be made, saved, loaded or written out.
public struct TestPKIError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
