import Foundation
import StoreCrypto

extension TestPKI {
    public enum GoogleKeyFormat: Sendable {
        /// `<package>.pem`, a PEM public key.
        case pem
        /// `<package>.pub`, one line of base64 DER as Play Console shows it.
        case oneLineBase64
    }

    /// Writes `trust/apple/*.cer` (the anchors, DER) and `trust/google/<package>.pem|.pub`
    /// for each package name into `rulesDirectory`, creating folders as needed.
    public func writeTrustDirectory(
        into rulesDirectory: URL, googlePackageNames: [String],
        googleKeyFormat: GoogleKeyFormat = .pem
    ) throws {
        let apple = rulesDirectory.appendingPathComponent("trust/apple", isDirectory: true)
        let google = rulesDirectory.appendingPathComponent("trust/google", isDirectory: true)
        try FileManager.default.createDirectory(at: apple, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: google, withIntermediateDirectories: true)
        for (name, anchor) in [
            ("apple-root-ca", appleRoot), ("apple-root-ca-g3", appleRootG3),
            ("itunes-store-ca", iTunesStoreCA),
        ] {
            try Data(anchor.der).write(to: apple.appendingPathComponent(name + ".cer"))
        }
        let keyText: String
        let fileExtension: String
        switch googleKeyFormat {
        case .pem:
            keyText = try googlePublicKeyPEM()
            fileExtension = "pem"
        case .oneLineBase64:
            keyText = try googlePublicKeyBase64() + "\n"
            fileExtension = "pub"
        }
        for package in googlePackageNames {
            // A package name is one path component; anything else would write elsewhere.
            guard !package.isEmpty, !package.contains("/"), !package.hasPrefix(".") else {
                throw TestPKIError("not a package name: \(package)")
            }
            try Data(keyText.utf8).write(to: google.appendingPathComponent(package + "." + fileExtension))
        }
    }

    /// Saves every key (`keys/<name>.pem`, unencrypted PKCS#8) and certificate
    /// (`certificates/<name>.cer`, DER) so `load(from:)` gives back the same world.
    public func save(to directory: URL) throws {
        let keyFolder = directory.appendingPathComponent("keys", isDirectory: true)
        let certificateFolder = directory.appendingPathComponent("certificates", isDirectory: true)
        try FileManager.default.createDirectory(at: keyFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: certificateFolder, withIntermediateDirectories: true)
        for (entry, key) in zip(Keys.specs, keys.all) {
            try Data(key.pkcs8PEM().utf8).write(to: keyFolder.appendingPathComponent(entry.name + ".pem"))
        }
        for (name, certificate) in zip(Self.certificateNames, allCertificates) {
            try Data(certificate.der).write(to: certificateFolder.appendingPathComponent(name + ".cer"))
        }
    }

    /// Reads back a world written by `save(to:)`.
    public static func load(from directory: URL) throws -> TestPKI {
        let keys = try Keys.specs.map { entry in
            let url = directory.appendingPathComponent("keys/\(entry.name).pem")
            return try PrivateKey(pem: String(decoding: try Data(contentsOf: url), as: UTF8.self))
        }
        let certificates = try certificateNames.map { name in
            let url = directory.appendingPathComponent("certificates/\(name).cer")
            return try X509Certificate(der: [UInt8](try Data(contentsOf: url)))
        }
        return try TestPKI(keys: Keys(keys), certificates: certificates)
    }
}
