import HTTPMessages
import JSONText
import Ledger

/// The JSON API under /api/v1/ (CONTRACT §14): the pages' data and actions for programs.
extension DeskService {
    func me(_ call: DeskCall) -> HTTPResponse {
        .json(
            DeskJSON.object([
                ("user", .string(call.user)), ("role", .string(call.role.rawValue)),
                ("csrf", .string(call.session.csrf)),
            ]))
    }

    func queueCall(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        let filter: QueueFilter
        do throws(QueueFilterReading.Invalid) {
            filter = try QueueFilterReading.filter(call.request.query)
        } catch {
            return refuse(400, error.message, api: true)
        }
        return .json(DeskJSON.queue(try call.store.queue(filter, now: call.now)))
    }

    func nextCall(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        if let refusal = call.refusedUnless(.reviewer, self, doing: "claim orders") { return refusal }
        guard let next = try call.store.claimNext(by: call.user, until: call.now + settings.claimMillis, now: call.now),
            case .claimed(let until, _) = next.outcome
        else { return refuse(404, "no open order is left", api: true) }
        return .json(
            DeskJSON.object([
                ("order_id", .string(next.orderID)), ("claimed_by", .string(call.user)),
                ("claimed_until", DeskJSON.time(until)),
            ]))
    }

    func orderCall(_ call: DeskCall, _ id: String) throws(LedgerError) -> HTTPResponse {
        guard let dossier = try call.store.dossier(of: id, now: call.now) else {
            return refuse(404, "no run flagged an order with this id", api: true)
        }
        return .json(DeskJSON.dossier(dossier))
    }

    func orderActionCall(_ call: DeskCall, _ id: String, _ action: DeskRoute.OrderAction) throws(LedgerError)
        -> HTTPResponse
    {
        if let refusal = call.refusedUnless(.reviewer, self, doing: "change orders") { return refusal }
        let body: JSONObject
        switch readBody(call.request, required: action == .notes || action == .verdict) {
        case .success(let o): body = o
        case .failure(let error): return refuse(error.status, error.reason, api: true)
        }
        let result: ActionResult
        switch action {
        case .claim: result = try OrderActions.claim(call, id, minutes: settings)
        case .release: result = try OrderActions.release(call, id)
        case .notes:
            guard let text = body["text"]?.string else { return refuse(400, "text must be a string", api: true) }
            result = try OrderActions.note(call, id, text: text)
        case .verdict:
            guard let version = body["version"]?.int64 else {
                return refuse(400, "version is required: the order's version you read", api: true)
            }
            if let note = body["note"], !note.isNull, note.string == nil {
                return refuse(400, "note must be a string", api: true)
            }
            result = try OrderActions.verdict(
                call, id, verdict: body["verdict"]?.string, note: body["note"]?.string, version: version)
        }
        return json(result)
    }

    func bulkVerdicts(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        if let refusal = call.refusedUnless(.lead, self, doing: "give bulk verdicts") { return refusal }
        let body: JSONObject
        switch readBody(call.request, required: true) {
        case .success(let o): body = o
        case .failure(let error): return refuse(error.status, error.reason, api: true)
        }
        guard let ids = body["orders"]?.array, !ids.isEmpty, ids.count <= QueueFilterReading.maxLimit else {
            return refuse(400, "orders must be a list of 1 to \(QueueFilterReading.maxLimit) order ids", api: true)
        }
        let orders = ids.compactMap(\.string)
        guard orders.count == ids.count else { return refuse(400, "every order id must be a string", api: true) }
        if let note = body["note"], !note.isNull, note.string == nil {
            return refuse(400, "note must be a string", api: true)
        }
        let verdict = body["verdict"]?.string
        guard verdict == "fraud" || verdict == "legit" else {
            return refuse(400, "verdict must be fraud or legit", api: true)
        }
        var results: [JSONValue] = []
        for id in orders {
            let r = try OrderActions.verdict(
                call, id, verdict: verdict, note: body["note"]?.string, version: nil, bulk: true)
            switch r {
            case .done(let value):
                results.append(
                    DeskJSON.object([("order_id", .string(id)), ("status", .number("200")), ("result", value)]))
            case .refused(let status, let message, let extra):
                results.append(
                    DeskJSON.object(
                        [("order_id", .string(id)), ("status", .number(String(status))), ("error", .string(message))]
                            + extra))
            }
        }
        return .json(DeskJSON.object([("results", .array(results))]))
    }

    func auditCall(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        if let refusal = call.refusedUnless(.lead, self, doing: "read the audit trail") { return refusal }
        let since: String?
        do throws(QueueFilterReading.Invalid) {
            since = try QueueFilterReading.since(call.request.query)
        } catch {
            return refuse(400, error.message, api: true)
        }
        var limit = 1000
        if let s = call.request.query.first("limit"), !s.isEmpty {
            guard let n = Int(s), (1...10_000).contains(n) else {
                return refuse(400, "limit must be a number from 1 to 10000", api: true)
            }
            limit = n
        }
        return .json(DeskJSON.audit(try call.store.audit(since: since, afterID: 0, limit: limit)))
    }

    /// The JSON object of a POST's body; an empty body is `{}` when none is `required`.
    private func readBody(_ request: HTTPRequest, required: Bool) -> Result<JSONObject, HTTPRequestError> {
        if request.body.isEmpty, !required { return .success(JSONObject()) }
        do throws(HTTPRequestError) {
            return .success(try request.jsonObject())
        } catch {
            return .failure(error)
        }
    }

    private func json(_ result: ActionResult) -> HTTPResponse {
        switch result {
        case .done(let value): return .json(value)
        case .refused(let status, let message, let extra): return .json(DeskJSON.error(message, extra), status: status)
        }
    }
}
