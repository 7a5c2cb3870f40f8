import HTTPMessages
import JSONText
import Ledger

/// What a claim, release, note or verdict came to, whether a page's form or the API asked:
/// done (with what the API answers), or refused with its status and words.
enum ActionResult {
    case done(JSONValue)
    case refused(status: Int, message: String, extra: [(String, JSONValue)])
}

/// The order actions of CONTRACT §14, checked alike for pages and the API.
enum OrderActions {
    static let longestNote = 10_000

    /// What a reviewer typed, as the ledger may keep it: not empty (when `required`), not too
    /// long, no control characters but line breaks and tabs.
    static func text(_ value: String?, required: Bool) -> Result<String?, ActionResultError> {
        guard let value, !value.allSatisfy(\.isWhitespace) else {
            return required ? .failure(ActionResultError("the note is empty")) : .success(nil)
        }
        guard value.count <= longestNote else {
            return .failure(ActionResultError("a note may have at most \(longestNote) characters"))
        }
        let allowed: Set<Unicode.Scalar> = ["\n", "\r", "\t"]
        guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 || $0.value == 0x7F) && !allowed.contains($0) })
        else { return .failure(ActionResultError("a note may not hold control characters")) }
        return .success(value)
    }

    static func claim(_ call: DeskCall, _ id: String, minutes settings: DeskSettings) throws(LedgerError)
        -> ActionResult
    {
        switch try call.store.claim(id, by: call.user, until: call.now + settings.claimMillis, now: call.now) {
        case .claimed(let until, _):
            return .done(
                DeskJSON.object([("claimed_by", .string(call.user)), ("claimed_until", DeskJSON.time(until))]))
        case .heldBy(let holder, let until):
            return .refused(
                status: 409, message: "claimed by \(holder) until \(DeskTime.text(until))",
                extra: [("claimed_by", .string(holder))])
        case .unknownOrder:
            return unknown(id)
        }
    }

    static func release(_ call: DeskCall, _ id: String) throws(LedgerError) -> ActionResult {
        switch try call.store.release(id, by: call.user, asLead: call.role == .lead, now: call.now) {
        case .released: return .done(DeskJSON.object([("released", .bool(true))]))
        case .notClaimed: return .refused(status: 409, message: "no one holds a claim on this order", extra: [])
        case .heldBy(let holder):
            return .refused(
                status: 403, message: "a reviewer may release only their own claim; \(holder) holds this one",
                extra: [("claimed_by", .string(holder))])
        case .unknownOrder: return unknown(id)
        }
    }

    static func note(_ call: DeskCall, _ id: String, text: String?) throws(LedgerError) -> ActionResult {
        let checked: String?
        switch OrderActions.text(text, required: true) {
        case .success(let t): checked = t
        case .failure(let e): return .refused(status: 400, message: e.message, extra: [])
        }
        guard let checked, let version = try call.store.addNote(id, by: call.user, text: checked, at: call.now) else {
            return unknown(id)
        }
        return .done(DeskJSON.object([("version", DeskJSON.number(version))]))
    }

    static func verdict(
        _ call: DeskCall, _ id: String, verdict: String?, note: String?, version: Int64?, bulk: Bool = false
    ) throws(LedgerError) -> ActionResult {
        guard let verdict, verdict == "fraud" || verdict == "legit" else {
            return .refused(status: 400, message: "verdict must be fraud or legit", extra: [])
        }
        guard bulk || version != nil else {
            return .refused(status: 400, message: "version is required: the order's version you read", extra: [])
        }
        let checkedNote: String?
        switch OrderActions.text(note, required: false) {
        case .success(let t): checkedNote = t
        case .failure(let e): return .refused(status: 400, message: e.message, extra: [])
        }
        switch try call.store.giveVerdict(
            id, verdict: verdict, note: checkedNote, by: call.user, version: bulk ? nil : version, bulk: bulk,
            at: call.now)
        {
        case .recorded(let replaced, let v):
            return .done(
                DeskJSON.object([
                    ("verdict", .string(verdict)), ("replaced", DeskJSON.text(replaced)),
                    ("version", DeskJSON.number(v)),
                ]))
        case .heldBy(let holder):
            return .refused(
                status: 409, message: "claimed by \(holder): only they can decide it now",
                extra: [("claimed_by", .string(holder))])
        case .staleVersion(let current, let by):
            return .refused(
                status: 409,
                message:
                    "the order changed since you read it (now version \(current)\(by.map { ", by \($0)" } ?? "")): "
                    + "read it again",
                extra: [("version", DeskJSON.number(current)), ("changed_by", DeskJSON.text(by))])
        case .unknownOrder:
            return unknown(id)
        }
    }

    static func unknown(_ id: String) -> ActionResult {
        .refused(status: 404, message: "no run flagged an order with this id", extra: [])
    }
}

struct ActionResultError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
