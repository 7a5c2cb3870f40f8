import DeskPages
import DeskSecurity
import Dispatch
import HTTPMessages
import Ledger

/// Logins and sessions (CONTRACT §14; OWASP Session Management): a new random id at every
/// login, only its hash kept, idle and absolute time-outs checked on the server, lockout per
/// user name, one answer for an unknown name and a wrong password.
extension DeskService {
    static let sessionCookie = "__Host-iapscreen"
    /// The login form's own token (double submit): no session exists yet to keep it.
    static let loginCookie = "__Host-iapscreen-login"
    static let longestUserName = 200

    static func cookie(_ name: String, _ value: String, maxAge: Int? = nil) -> String {
        "\(name)=\(value); Path=/; Secure; HttpOnly; SameSite=Strict" + (maxAge.map { "; Max-Age=\($0)" } ?? "")
    }

    func loginForm(_ request: HTTPRequest) -> HTTPResponse {
        let token = CSRFToken.make()
        return HTTPResponse.html(DeskPages.login(csrf: token, username: nil, error: nil))
            .adding("Set-Cookie", Self.cookie(Self.loginCookie, token))
    }

    func login(_ request: HTTPRequest, store: any DeskStore) throws(LedgerError) -> HTTPResponse {
        let form: NamedValues
        do throws(HTTPRequestError) {
            form = try request.form()
        } catch {
            return refuse(error.status, error.reason, api: false)
        }
        guard CSRFCheck.sameOrigin(request), let sent = form.first("csrf"),
            let kept = request.cookie(Self.loginCookie), SecretToken.isWellFormed(kept),
            CSRFCheck.matches(sent: sent, kept: kept)
        else {
            return again(403, "this login form is stale or came from another site: log in again", name: nil)
        }
        guard let name = form.first("username"), let password = form.first("password"), !name.isEmpty,
            name.count <= Self.longestUserName
        else {
            return again(400, "give a user name and a password", name: nil)
        }
        let now = clock()
        let failures = try store.loginFailures(of: name, since: now - settings.lockoutMillis)
        if failures.count >= settings.lockoutFailures, let last = failures.last {
            let wait = max(1, (last + settings.lockoutMillis - now + 999) / 1000)
            return again(
                429, "too many failed logins for this name: try again in \((wait + 59) / 60) minutes", name: name
            )
            .adding("Retry-After", String(wait))
        }
        let user = try store.user(named: name)
        let good = logins.checking {
            guard let user, !user.disabled else { return PasswordHash.verifyUnknownUser(password) }
            return PasswordHash.verify(password, against: user.passwordHash)
        }
        guard good, let user else {
            try store.recordLoginFailure(of: name, at: now)
            return again(401, "wrong user name or password", name: name)
        }
        let token = SessionToken.make()
        try store.startSession(idHash: SessionToken.digest(of: token), user: user.name, csrf: CSRFToken.make(), at: now)
        return HTTPResponse.redirect(to: "/queue")
            .adding("Set-Cookie", Self.cookie(Self.sessionCookie, token))
            .adding("Set-Cookie", Self.cookie(Self.loginCookie, "", maxAge: 0))
    }

    /// The login form again, with a fresh token and what went wrong.
    private func again(_ status: Int, _ error: String, name: String?) -> HTTPResponse {
        let token = CSRFToken.make()
        return HTTPResponse.html(DeskPages.login(csrf: token, username: name, error: error), status: status)
            .adding("Set-Cookie", Self.cookie(Self.loginCookie, token))
    }

    /// The request's session when it is live; one that lapsed, or whose user was disabled or
    /// given a new password, ends here.
    func liveSession(_ request: HTTPRequest, store: any DeskStore, now: Int64) throws(LedgerError) -> DeskSession? {
        guard let token = request.cookie(Self.sessionCookie), SecretToken.isWellFormed(token) else { return nil }
        let hash = SessionToken.digest(of: token)
        guard let session = try store.session(idHash: hash) else { return nil }
        let lapsed =
            session.user.disabled || now - session.seenAt > settings.idleMillis
            || now - session.createdAt > settings.maxMillis || session.createdAt < session.user.passwordSetAt
        if lapsed {
            try store.endSession(idHash: hash, at: now, logout: nil)
            return nil
        }
        if now - session.seenAt >= settings.touchEveryMilliseconds { try store.touchSession(idHash: hash, at: now) }
        return session
    }

    func logout(_ call: DeskCall) throws(LedgerError) -> HTTPResponse {
        try call.store.endSession(idHash: call.session.idHash, at: call.now, logout: call.user)
        return HTTPResponse.redirect(to: "/login").adding("Set-Cookie", Self.cookie(Self.sessionCookie, "", maxAge: 0))
    }
}

/// At most a few password checks at once (`DeskSettings.concurrentLogins`): the others wait.
final class LoginGate: Sendable {
    private let slots: DispatchSemaphore

    init(concurrent: Int) {
        slots = DispatchSemaphore(value: max(1, concurrent))
    }

    func checking(_ body: () -> Bool) -> Bool {
        slots.wait()
        defer { slots.signal() }
        return body()
    }
}
