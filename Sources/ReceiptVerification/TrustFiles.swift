import Foundation
import StoreCrypto

/// Reads the Rules directory's trust files (docs/rules.md):
///   trust/apple/*.cer|.der|.crt   one DER certificate
///   trust/apple/*.pem             one or more `CERTIFICATE` blocks
///   trust/google/<package>.pem    a PEM public key
///   trust/google/<package>.pub    one line of base64 DER SubjectPublicKeyInfo (Play Console)
/// Any file that cannot be read or parsed is an error naming it.
enum TrustFiles {
    /// Every certificate of every file, in the order given.
    static func appleAnchors(_ paths: [String]) throws(TrustFileError) -> [X509Certificate] {
        var anchors: [X509Certificate] = []
        for path in paths {
            let bytes = try contents(of: path)
            do {
                anchors += try X509Certificate.parseFile(bytes)
            } catch {
                throw TrustFileError(path: path, reason: "not a trust anchor certificate (\(error.reason))")
            }
        }
        return anchors
    }

    /// Each package's Play licensing key, which must be RSA (Google signs SHA1withRSA).
    static func googleKeys(_ files: [String: String]) throws(TrustFileError) -> [String: PublicKey] {
        var keys: [String: PublicKey] = [:]
        for (package, path) in files.sorted(by: { $0.key < $1.key }) {
            let bytes = try contents(of: path)
            let key: PublicKey
            do {
                key = try PublicKey.parse(keyFile: bytes)
            } catch {
                throw TrustFileError(path: path, reason: "not a Play licensing public key (\(error.reason))")
            }
            guard case .rsa = key.kind else {
                throw TrustFileError(path: path, reason: "a Play licensing key is RSA, this one is \(key.kind)")
            }
            keys[package] = key
        }
        return keys
    }

    private static func contents(of path: String) throws(TrustFileError) -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw TrustFileError(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
    }
}
