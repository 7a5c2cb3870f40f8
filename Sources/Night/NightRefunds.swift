import IAPBasics
import Screening

/// The night's believed refunds and reversals, packed: a night of a million store events keeps
/// each in 64 bytes (its key, time, identity and where it was read; its few words — event,
/// reason, source, revocation type — as numbers into a table of the night's names), and gives
/// each back whole as a `StoreRefund` when asked.
struct NightRefunds: Sendable {
    private struct Packed: Sendable {
        /// The claim key, or — `tokenOnly` — the Google purchase token that names it.
        var key: String
        var millis: Int64
        var identity: EventIdentity
        var line: Int32
        var file: UInt32
        /// `Int32.min`: none (or out of range: then in `wideExtras`).
        var percentage: Int32
        var event: UInt16
        var reason: UInt16
        var source: UInt16
        var revocationType: UInt16
        var flags: UInt8
    }

    private struct Flags {
        static let reversal: UInt8 = 1
        static let tokenOnly: UInt8 = 2
        static let row: UInt8 = 4
        static let milliseconds: UInt8 = 8
        static let located: UInt8 = 16
    }

    private var packed: [Packed] = []
    /// Names by number; 0 is none, `overflow` one kept in `wideExtras` (a night of more
    /// distinct names than 65534).
    private var names: [String] = [""]
    private var numbers: [String: UInt16] = [:]
    private static let overflow = UInt16.max
    private var files: [String] = []
    private var fileNumbers: [String: UInt32] = [:]
    /// What did not fit the packed fields, by refund index.
    private var wideExtras:
        [Int: (event: String?, reason: String?, source: String?, type: String?, percentage: Int64?)] = [:]

    var count: Int { packed.count }

    /// Keeps `r`; `token` names it when its key is empty (a Google purchase known only by it).
    mutating func append(_ r: StoreRefund, token: String?, identity: EventIdentity) {
        let index = packed.count
        var wide: (event: String?, reason: String?, source: String?, type: String?, percentage: Int64?) = (
            nil, nil, nil, nil, nil
        )
        func number(_ s: String?, _ spill: (String) -> Void) -> UInt16 {
            guard let s else { return 0 }
            if let n = numbers[s] { return n }
            guard names.count < Int(Self.overflow) else {
                spill(s)
                return Self.overflow
            }
            let n = UInt16(names.count)
            names.append(s)
            numbers[s] = n
            return n
        }
        var flags: UInt8 = r.kind == .reversal ? Flags.reversal : 0
        if r.at.hasMilliseconds { flags |= Flags.milliseconds }
        let key: String
        if r.key.isEmpty, let token {
            key = token
            flags |= Flags.tokenOnly
        } else {
            key = r.key
        }
        var line: Int32 = 0
        var file: UInt32 = 0
        if let location = r.location {
            flags |= Flags.located
            switch location.position {
            case .line(let n): line = Int32(clamping: n)
            case .row(let n):
                line = Int32(clamping: n)
                flags |= Flags.row
            }
            if let f = fileNumbers[location.file] {
                file = f
            } else {
                file = UInt32(truncatingIfNeeded: files.count)
                files.append(location.file)
                fileNumbers[location.file] = file
            }
        }
        var percentage = Int32.min
        if let p = r.revocationPercentage {
            if let small = Int32(exactly: p), small != Int32.min { percentage = small } else { wide.percentage = p }
        }
        packed.append(
            Packed(
                key: key, millis: r.at.millis, identity: identity, line: line, file: file, percentage: percentage,
                event: number(r.event) { wide.event = $0 }, reason: number(r.reason) { wide.reason = $0 },
                source: number(r.source) { wide.source = $0 },
                revocationType: number(r.revocationType) { wide.type = $0 }, flags: flags))
        if wide.event != nil || wide.reason != nil || wide.source != nil || wide.type != nil || wide.percentage != nil {
            wideExtras[index] = wide
        }
    }

    /// Refund `i` whole, with the token that names it (when its key is empty) and its identity.
    subscript(i: Int) -> (refund: StoreRefund, token: String?, identity: EventIdentity) {
        let p = packed[i]
        let wide = wideExtras[i]
        func name(_ n: UInt16, _ spilled: String?) -> String? {
            n == 0 ? nil : n == Self.overflow ? spilled : names[Int(n)]
        }
        let tokenOnly = p.flags & Flags.tokenOnly != 0
        let location: SourceLocation? =
            p.flags & Flags.located != 0 && files.indices.contains(Int(p.file))
            ? (p.flags & Flags.row != 0
                ? SourceLocation(file: files[Int(p.file)], row: Int(p.line))
                : SourceLocation(file: files[Int(p.file)], line: Int(p.line))) : nil
        var r = StoreRefund(
            kind: p.flags & Flags.reversal != 0 ? .reversal : .refund, key: tokenOnly ? "" : p.key,
            token: tokenOnly ? p.key : nil, event: name(p.event, wide?.event) ?? "",
            at: Timestamp(clampingMillis: p.millis, hasMilliseconds: p.flags & Flags.milliseconds != 0),
            location: location)
        r.reason = name(p.reason, wide?.reason)
        r.source = name(p.source, wide?.source)
        r.revocationType = name(p.revocationType, wide?.type)
        r.revocationPercentage = p.percentage != Int32.min ? Int64(p.percentage) : wide?.percentage
        return (r, tokenOnly ? p.key : nil, p.identity)
    }

    /// The tokens of refunds that name no claim key.
    var unresolvedTokens: Set<String> {
        var out: Set<String> = []
        for p in packed where p.flags & Flags.tokenOnly != 0 { out.insert(p.key) }
        return out
    }
}
