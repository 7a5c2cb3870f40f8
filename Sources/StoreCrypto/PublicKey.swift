import COpenSSL
import IAPBasics
import Synchronization

/// A public key (RSA or EC) read from a certificate, a PEM file or Google's one-line base64.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after init, and OpenSSL 3
/// allows concurrent verifications with one key as long as each has its own context.
public final class PublicKey: @unchecked Sendable {
    let handle: OpaquePointer
    public let kind: KeyKind
    /// Verification contexts made once per digest (see `VerifyTemplate`).
    private let templates = Mutex<[DigestAlgorithm: VerifyTemplate]>([:])
    /// ES256 checks so far, then this key's own table (see `P256KeyTable`).
    private let es256 = Mutex<ES256Speed>(.counting(0))

    private enum ES256Speed {
        case counting(Int)
        /// One thread is building the table.
        case building
        case table(P256KeyTable)
        case plain
    }

    /// Checks with a key before it gets a table: one-off keys are not worth building one.
    static let es256TableAfter = 8
    /// Tables built so far in this process (at most `P256KeyTable.maxTables`).
    private static let es256Tables = Mutex(0)
    /// How many keys got a table in this process (shown by `IAPSCREEN_TIMINGS`).
    public static var es256TablesBuilt: Int { es256Tables.withLock { $0 } }

    /// Takes ownership of `handle`.
    init(owning handle: OpaquePointer) {
        self.handle = handle
        self.kind = KeyKind(of: handle)
    }

    deinit { EVP_PKEY_free(handle) }

    /// The verification context of this key for `digest`, set up on first use.
    func verifyTemplate(_ digest: DigestAlgorithm) throws(CryptoError) -> VerifyTemplate {
        if let known = templates.withLock({ $0[digest] }) { return known }
        let made = try VerifyTemplate(key: handle, digest: digest)
        return templates.withLock { cache in
            if let raced = cache[digest] { return raced }
            cache[digest] = made
            return made
        }
    }

    /// This key's table once it has checked enough ES256 signatures to be worth one;
    /// nil before, while one thread builds it, for keys whose point OpenSSL refuses, and
    /// after the process's budget.
    func es256Table() -> P256KeyTable? {
        let step: TableStep = es256.withLock { speed in
            switch speed {
            case .table(let table): return .use(table)
            case .plain, .building: return .withoutTable
            case .counting(let uses):
                guard uses + 1 >= PublicKey.es256TableAfter else {
                    speed = .counting(uses + 1)
                    return .withoutTable
                }
                let granted = PublicKey.es256Tables.withLock { built in
                    guard built < P256KeyTable.maxTables else { return false }
                    built += 1
                    return true
                }
                guard granted, kind == .ecP256 else {
                    speed = .plain
                    return .withoutTable
                }
                speed = .building
                return .build
            }
        }
        switch step {
        case .use(let table): return table
        case .withoutTable: return nil
        case .build:
            // Built outside the lock (some 20 ms): the other threads check without a table
            // meanwhile instead of waiting for it, a core idle at the start of every night.
            let table = P256KeyTable(key: handle)
            es256.withLock { $0 = table.map(ES256Speed.table) ?? .plain }
            return table
        }
    }

    /// What a check does about the table: use it, build it, or go without.
    private enum TableStep {
        case use(P256KeyTable)
        case build
        case withoutTable
    }

    /// From DER SubjectPublicKeyInfo; bytes left over after it are an error.
    public convenience init(derSubjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else { return nil }
            guard let end = cursor, end == base + buffer.count else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let parsed else {
            throw CryptoError.openSSL(.badKey, "not a DER SubjectPublicKeyInfo (or bytes left over after it)")
        }
        self.init(owning: parsed)
    }

    /// From a `-----BEGIN PUBLIC KEY-----` PEM block.
    public convenience init(pem: String) throws(CryptoError) {
        let bio = try MemoryBIO(reading: Array(pem.utf8))
        guard let key = PEM_read_bio_PUBKEY(bio.handle, nil, refusePassphrase, nil) else {
            throw CryptoError.openSSL(.badKey, "not a PEM public key")
        }
        self.init(owning: key)
    }

    /// From base64 of DER SubjectPublicKeyInfo, as Play Console shows a licensing key.
    public convenience init(base64DER: String) throws(CryptoError) {
        let der: [UInt8]
        do {
            der = try Base64.decode(base64DER)
        } catch {
            throw CryptoError(.badKey, "not base64: \(error.reason) at offset \(error.offset)")
        }
        try self.init(derSubjectPublicKeyInfo: der)
    }

    /// A key file's contents: PEM when it holds a `-----BEGIN` line, else one-line base64 DER.
    public static func parse(keyFile bytes: [UInt8]) throws(CryptoError) -> PublicKey {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN") {
            return try PublicKey(pem: text)
        }
        return try PublicKey(base64DER: text)
    }

    public func derSubjectPublicKeyInfo() throws(CryptoError) -> [UInt8] {
        try DEREncoding.encode("public key") { i2d_PUBKEY(handle, $0) }
    }

    public func pem() throws(CryptoError) -> String {
        let bio = try MemoryBIO()
        guard PEM_write_bio_PUBKEY(bio.handle, handle) == 1 else {
            throw CryptoError.openSSL(.operationFailed, "cannot write the public key as PEM")
        }
        return bio.text()
    }

    /// One line of base64 DER, the form of a Google `.pub` file.
    public func base64DER() throws(CryptoError) -> String {
        Base64.encode(try derSubjectPublicKeyInfo())
    }
}
