import Dispatch
import StoreCrypto
import Synchronization

extension TestPKI {
    /// Every private key of the world. Generating them is the slow part (RSA-2048 is tens of
    /// milliseconds each): make them once and pass them to each `TestPKI` that needs other
    /// validity windows. Worlds sharing keys trust each other; a forger needs fresh keys.
    public struct Keys: Sendable {
        public var appleRoot: PrivateKey
        public var wwdr: PrivateKey
        /// Signs app receipts; the RSA developer look-alike leaf shares it.
        public var receiptSigning: PrivateKey
        public var appleRootG3: PrivateKey
        public var wwdrG6: PrivateKey
        /// Signs JWS; the EC developer look-alike leaf shares it.
        public var jwsSigning: PrivateKey
        public var iTunesStoreCA: PrivateKey
        /// RSA-1024, as iOS 6 receipts had.
        public var legacyReceiptSigning: PrivateKey
        public var xcodeRSA: PrivateKey
        public var xcodeEC: PrivateKey
        /// The Play Console licensing key.
        public var google: PrivateKey

        /// File names under `keys/` when saved, and the spec each key is generated with.
        static let specs: [(name: String, spec: PrivateKey.Spec)] = [
            ("apple-root-ca", .rsa(bits: 2048)), ("apple-wwdr", .rsa(bits: 2048)),
            ("receipt-signing", .rsa(bits: 2048)), ("apple-root-ca-g3", .ecP256), ("apple-wwdr-g6", .ecP256),
            ("jws-signing", .ecP256), ("itunes-store-ca", .rsa(bits: 2048)), ("ios6-receipt-signing", .rsa(bits: 1024)),
            ("xcode-storekit-rsa", .rsa(bits: 2048)), ("xcode-storekit-ec", .ecP256),
            ("google-licensing", .rsa(bits: 2048)),
        ]

        /// In `specs` order.
        var all: [PrivateKey] {
            [
                appleRoot, wwdr, receiptSigning, appleRootG3, wwdrG6, jwsSigning, iTunesStoreCA, legacyReceiptSigning,
                xcodeRSA, xcodeEC, google,
            ]
        }

        /// From keys in `specs` order.
        init(_ keys: [PrivateKey]) throws {
            guard keys.count == Keys.specs.count else {
                throw TestPKIError("expected \(Keys.specs.count) keys, got \(keys.count)")
            }
            appleRoot = keys[0]
            wwdr = keys[1]
            receiptSigning = keys[2]
            appleRootG3 = keys[3]
            wwdrG6 = keys[4]
            jwsSigning = keys[5]
            iTunesStoreCA = keys[6]
            legacyReceiptSigning = keys[7]
            xcodeRSA = keys[8]
            xcodeEC = keys[9]
            google = keys[10]
        }

        /// Fresh keys, generated on every core at once.
        public static func generate() throws -> Keys {
            let results = GeneratedKeys(count: specs.count)
            DispatchQueue.concurrentPerform(iterations: specs.count) { index in
                results.store(
                    Result { () throws(CryptoError) in try PrivateKey.generate(specs[index].spec) }, at: index)
            }
            return try Keys(results.collect())
        }
    }
}

/// Slots the parallel key generation fills, one per key.
private final class GeneratedKeys: Sendable {
    private let slots: Mutex<[Result<PrivateKey, CryptoError>?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    func store(_ result: Result<PrivateKey, CryptoError>, at index: Int) {
        slots.withLock { $0[index] = result }
    }

    func collect() throws -> [PrivateKey] {
        try slots.withLock { slots in
            try slots.map { slot in
                guard let slot else { throw TestPKIError("a key was not generated") }
                return try slot.get()
            }
        }
    }
}
