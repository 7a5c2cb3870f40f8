import IAPBasics

/// Which store each order of a demo world is bought through. The cases planted are the same
/// in every mix; only the share of each store (and so of each dump and each kind of
/// signature) differs.
public enum SampleStoreMix: String, CaseIterable, Sendable {
    /// Half App Store app receipts (PKCS#7), a third Google Play, a sixth StoreKit 2 JWS:
    /// the demo world, every dump well filled.
    case classic
    /// Nineteen orders in twenty StoreKit 2 JWS (ES256, which signs in a twelfth of the time
    /// RSA-2048 takes), the rest app receipts and Google Play; a case that needs one store's
    /// proof (a tampered PKCS#7, an unsigned Google purchase, …) is bought there: about one
    /// order in ten still carries an RSA signature. Big benchmark
    /// worlds are made this way, in minutes rather than hours.
    case storekit2

    /// The store of the next group, drawn from `random`.
    func draw(_ random: inout SeededRandom) -> PlannedOrder.Store {
        switch self {
        case .classic: return random.below(6) < 3 ? .appReceipt : (random.below(3) == 0 ? .jws : .google)
        case .storekit2:
            switch random.below(40) {
            case 38: return .appReceipt
            case 39: return .google
            default: return .jws
            }
        }
    }

    /// The store a planted case is bought through when `drawn` was drawn for it. The classic
    /// mix keeps the draw (a case that cannot happen there becomes its nearest kin, as
    /// `SamplePlanner` says); the StoreKit 2 mix moves the cases only one store can show.
    func store(for caseName: String, drawn: PlannedOrder.Store) -> PlannedOrder.Store {
        guard self == .storekit2 else { return drawn }
        switch caseName {
        case "unsigned-google", "pending": return .google
        case "tampered-receipt", "xcode-receipt": return .appReceipt
        default: return drawn
        }
    }
}
