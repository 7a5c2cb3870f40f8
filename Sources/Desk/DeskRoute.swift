/// Where a request goes, from its method and decoded path segments (CONTRACT §14). A path
/// the desk does not serve is `.notFound`; a known path with another method, `.wrongMethod`.
enum DeskRoute: Equatable {
    // Pages.
    case home, loginForm, login, logout, queuePage, nextPage, auditPage
    case orderPage(String)
    case orderAction(String, OrderAction)
    case asset(String)
    // The API.
    case me, queue, next, audit, bulkVerdicts
    case order(String)
    case orderCall(String, OrderAction)

    case notFound
    case wrongMethod(allowed: String)

    enum OrderAction: String, Equatable {
        case claim, release, notes, verdict
    }

    init(method: String, path: [String]) {
        let get = method == "GET" || method == "HEAD"
        let post = method == "POST"
        func only(_ m: Bool, _ route: DeskRoute, allowed: String) -> DeskRoute {
            m ? route : .wrongMethod(allowed: allowed)
        }
        func reading(_ route: DeskRoute) -> DeskRoute { only(get, route, allowed: "GET, HEAD") }
        func changing(_ route: DeskRoute) -> DeskRoute { only(post, route, allowed: "POST") }
        let p = path
        let api = p.count >= 2 && p[0] == "api" && p[1] == "v1"
        let rest = api ? Array(p.dropFirst(2)) : p
        func action(_ text: String) -> OrderAction? { OrderAction(rawValue: text) }
        switch (api, rest.count, rest.first ?? "") {
        case (false, 0, _): self = reading(.home)
        case (false, 1, "login"): self = get ? .loginForm : post ? .login : .wrongMethod(allowed: "GET, HEAD, POST")
        case (false, 1, "logout"): self = changing(.logout)
        case (false, 1, "queue"): self = reading(.queuePage)
        case (false, 2, "queue") where rest[1] == "next": self = changing(.nextPage)
        case (false, 1, "audit"): self = reading(.auditPage)
        case (false, 2, "orders"): self = reading(.orderPage(rest[1]))
        case (false, 3, "orders"):
            guard let a = action(rest[2]) else {
                self = .notFound
                return
            }
            self = changing(.orderAction(rest[1], a))
        case (false, 2, "assets"): self = reading(.asset(rest[1]))
        case (true, 1, "me"): self = reading(.me)
        case (true, 1, "queue"): self = reading(.queue)
        case (true, 1, "next"): self = changing(.next)
        case (true, 1, "audit"): self = reading(.audit)
        case (true, 1, "verdicts"): self = changing(.bulkVerdicts)
        case (true, 2, "orders"): self = reading(.order(rest[1]))
        case (true, 3, "orders"):
            guard let a = action(rest[2]) else {
                self = .notFound
                return
            }
            self = changing(.orderCall(rest[1], a))
        default: self = .notFound
        }
    }

    /// API routes answer JSON (and 401 without a session); the others are pages (303 to /login).
    var isAPI: Bool {
        switch self {
        case .me, .queue, .next, .audit, .bulkVerdicts, .order, .orderCall: true
        default: false
        }
    }

    /// Routes anyone may reach without a session.
    var isPublic: Bool {
        switch self {
        case .loginForm, .login, .asset, .notFound, .wrongMethod: true
        default: false
        }
    }
}
