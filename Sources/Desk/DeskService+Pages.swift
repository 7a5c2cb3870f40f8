import DeskPages
import HTTPMessages
import Ledger

/// The pages (CONTRACT §14): each one function of its data (DeskPages); what a form changes
/// is a POST that answers 303 back to the page, or the page again with why not.
extension DeskService {
    func queuePage(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        let filter: QueueFilter
        do throws(QueueFilterReading.Invalid) {
            filter = try QueueFilterReading.filter(call.request.query)
        } catch {
            return refuse(400, error.message, api: false, context: call.context)
        }
        let page = try call.store.queue(filter, now: call.now)
        return .html(DeskPages.queue(page, filter: filter, context: call.context, message: nil))
    }

    func nextPage(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        if let refusal = call.refusedUnless(.reviewer, self, doing: "claim orders") { return refusal }
        guard let next = try call.store.claimNext(by: call.user, until: call.now + settings.claimMillis, now: call.now)
        else {
            let page = try call.store.queue(QueueFilter(), now: call.now)
            return .html(
                DeskPages.queue(page, filter: QueueFilter(), context: call.context, message: "No open order is left."),
                status: 404)
        }
        return .redirect(to: DeskPaths.order(next.orderID))
    }

    func orderPage(_ call: DeskCall, _ id: String, message: String?, status: Int = 200) throws(LedgerError)
        -> HTTPResponse
    {
        guard let dossier = try call.store.dossier(of: id, now: call.now) else {
            return refuse(404, "no run flagged an order with this id", api: false, context: call.context)
        }
        return .html(DeskPages.order(dossier, context: call.context, message: message), status: status)
    }

    func orderAction(_ call: DeskCall, _ id: String, _ action: DeskRoute.OrderAction) throws(LedgerError)
        -> HTTPResponse
    {
        if let refusal = call.refusedUnless(.reviewer, self, doing: "change orders") { return refusal }
        let result: ActionResult
        switch action {
        case .claim: result = try OrderActions.claim(call, id, minutes: settings)
        case .release: result = try OrderActions.release(call, id)
        case .notes: result = try OrderActions.note(call, id, text: call.form.first("text"))
        case .verdict:
            let version = call.form.first("version").flatMap { Int64($0) }
            guard call.form.first("version") == nil || version != nil else {
                return try orderPage(call, id, message: "version is not a number", status: 400)
            }
            result = try OrderActions.verdict(
                call, id, verdict: call.form.first("verdict"), note: call.form.first("note"), version: version)
        }
        switch result {
        case .done: return .redirect(to: DeskPaths.order(id))
        case .refused(404, let message, _): return refuse(404, message, api: false, context: call.context)
        case .refused(let status, let message, _): return try orderPage(call, id, message: message, status: status)
        }
    }

    func auditPage(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        if let refusal = call.refusedUnless(.lead, self, doing: "read the audit trail") { return refusal }
        let since: String?
        do throws(QueueFilterReading.Invalid) {
            since = try QueueFilterReading.since(call.request.query)
        } catch {
            return refuse(400, error.message, api: false, context: call.context)
        }
        let entries = try call.store.audit(since: since, afterID: 0, limit: 1000)
        return .html(DeskPages.audit(entries, since: since, context: call.context))
    }
}

/// The desk's own paths, each segment percent-encoded (an order id may hold anything).
enum DeskPaths {
    static func order(_ id: String) -> String { RequestPath.encode(["orders", id]) }
}
