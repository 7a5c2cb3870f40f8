import DeskPages
import HTTPMessages
import IAPBasics
import JSONText
import Ledger

/// The desk (CONTRACT §14): every request in, one response out, on whichever server thread
/// libmicrohttpd calls. Everything a request may change goes through a session, its CSRF
/// token, the `Origin` check and the role; every response carries the security headers.
public final class DeskService: Sendable {
    let settings: DeskSettings
    let pool: DeskStorePool
    let assets: DeskAssetFiles
    let clock: @Sendable () -> Int64
    let logins: LoginGate

    public init(
        settings: DeskSettings, pool: DeskStorePool, assets: DeskAssetFiles,
        clock: @escaping @Sendable () -> Int64 = { SystemClock.now().millis }
    ) {
        self.settings = settings
        self.pool = pool
        self.assets = assets
        self.clock = clock
        logins = LoginGate(concurrent: settings.concurrentLogins)
    }

    /// What the server answers to a request it could not read (400, 413, 414, 431): the
    /// reason as text, with the headers every answer of the desk carries.
    public static func refusal(_ error: HTTPRequestError) -> HTTPResponse {
        SecurityHeaders.added(to: HTTPResponse.refusal(error))
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do throws(LedgerError) {
            response = try answer(request)
        } catch {
            // The ledger failed: a server gone (503, try again), or what it holds of this
            // order does not read (500, naming it: trying again will not help). Nothing was
            // changed that is not rolled back.
            let damaged = error.code == .unreadableRows
            let said = damaged ? error.message : "the ledger cannot be reached: try again"
            let status = damaged ? 500 : 503
            response =
                request.path.first == "api"
                ? .json(DeskJSON.error(said), status: status)
                : .html(DeskPages.error(status: status, message: said, context: nil), status: status)
        }
        if request.method == "HEAD" { response.body = [] }
        return SecurityHeaders.added(to: response)
    }

    private func answer(_ request: HTTPRequest) throws(LedgerError) -> HTTPResponse {
        let route = DeskRoute(method: request.method, path: request.path)
        let api = request.path.first == "api"
        switch route {
        case .notFound:
            return refuse(404, "no such page", api: api)
        case .wrongMethod(let allowed):
            return refuse(405, "this path does not take \(request.method)", api: api).adding("Allow", allowed)
        case .asset(let name):
            return assets.response(for: name) ?? refuse(404, "no such page", api: false)
        case .loginForm:
            return loginForm(request)
        case .login:
            return try pool.with { (store) throws(LedgerError) in try login(request, store: store) }
        default:
            break
        }
        return try pool.with { (store) throws(LedgerError) -> HTTPResponse in
            let now = clock()
            guard let session = try liveSession(request, store: store, now: now) else {
                return route.isAPI
                    ? .json(DeskJSON.error("log in first"), status: 401)
                    : HTTPResponse.redirect(to: "/login")
            }
            var call = DeskCall(request: request, session: session, store: store, now: now, api: route.isAPI)
            if request.method == "POST" {
                if let refusal = call.refusedPost(self) { return refusal }
            }
            return try dispatch(route, &call)
        }
    }

    private func dispatch(_ route: DeskRoute, _ call: inout DeskCall) throws(LedgerError) -> HTTPResponse {
        switch route {
        case .home: return .redirect(to: "/queue")
        case .logout: return try logout(call)
        case .queuePage: return try queuePage(call)
        case .nextPage: return try nextPage(call)
        case .auditPage: return try auditPage(call)
        case .orderPage(let id): return try orderPage(call, id, message: nil)
        case .orderAction(let id, let action): return try orderAction(call, id, action)
        case .me: return me(call)
        case .queue: return try queueCall(call)
        case .next: return try nextCall(call)
        case .audit: return try auditCall(call)
        case .bulkVerdicts: return try bulkVerdicts(call)
        case .order(let id): return try orderCall(call, id)
        case .orderCall(let id, let action): return try orderActionCall(call, id, action)
        case .loginForm, .login, .asset, .notFound, .wrongMethod: return refuse(404, "no such page", api: call.api)
        }
    }

    func refuse(_ status: Int, _ message: String, api: Bool, context: DeskPageContext? = nil) -> HTTPResponse {
        api
            ? .json(DeskJSON.error(message), status: status)
            : .html(DeskPages.error(status: status, message: message, context: context), status: status)
    }
}

/// One request with its live session, its ledger connection and the time it is answered at.
struct DeskCall {
    let request: HTTPRequest
    let session: DeskSession
    let store: any DeskStore
    let now: Int64
    let api: Bool
    /// The form of a page's POST, once read.
    var form = NamedValues()

    var user: String { session.user.name }
    var role: DeskRole { session.user.role }
    var context: DeskPageContext { DeskPageContext(user: user, role: role, csrf: session.csrf, now: now) }

    init(request: HTTPRequest, session: DeskSession, store: any DeskStore, now: Int64, api: Bool) {
        self.request = request
        self.session = session
        self.store = store
        self.now = now
        self.api = api
    }

    /// A POST that may not go on: a body that cannot be read (400/413/415), a CSRF token that
    /// is not the session's or an `Origin` that is not the desk's (403). Nil: go on.
    mutating func refusedPost(_ desk: DeskService) -> HTTPResponse? {
        var sent = request.header("x-csrf-token")
        if !api {
            do throws(HTTPRequestError) {
                form = try request.form()
            } catch {
                return desk.refuse(error.status, error.reason, api: api, context: context)
            }
            sent = sent ?? form.first("csrf")
        }
        guard CSRFCheck.sameOrigin(request) else {
            return desk.refuse(403, "this request came from another site; nothing changed", api: api, context: context)
        }
        guard let sent, CSRFCheck.matches(sent: sent, kept: session.csrf) else {
            return desk.refuse(
                403, "the form or request lacks this session's CSRF token; reload the page; nothing changed", api: api,
                context: context)
        }
        return nil
    }

    /// 403 unless the session's role is at least `role`.
    func refusedUnless(_ needed: DeskRole, _ desk: DeskService, doing what: String) -> HTTPResponse? {
        role >= needed
            ? nil : desk.refuse(403, "a \(role.rawValue) may not \(what); nothing changed", api: api, context: context)
    }
}
