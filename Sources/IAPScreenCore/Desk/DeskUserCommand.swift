import DeskSecurity
import Foundation
import IAPBasics
import Ledger

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen desk user add|password|disable|enable|unlock|list` (CONTRACT §14): the desk's
/// users on the command line. A password is read as one line on stdin, never from the
/// arguments, and only its Argon2id hash is kept.
enum DeskUserCommand {
    static func run(_ args: ParsedArguments, words: [String], store: any DeskStore, io: Console) -> ExitStatus {
        let actor = ReviewCommand.loginName() ?? "uid \(getuid())"
        let now = SystemClock.now().millis
        guard let verb = words.first else {
            io.usageError(
                command: DeskCommand.spec, "say what to do: desk user add|password|disable|enable|unlock|list")
            return .usage
        }
        do throws(LedgerError) {
            if verb == "list" {
                guard words.count == 1 else {
                    io.usageError(command: DeskCommand.spec, "desk user list takes no name")
                    return .usage
                }
                for u in try store.users() {
                    io.out.write("\(u.name)\t\(u.role.rawValue)\t\(u.disabled ? "disabled" : "enabled")\n")
                }
                return .ok
            }
            guard words.count == 2, let name = words.last, DeskUserCommand.isName(name) else {
                io.usageError(
                    command: DeskCommand.spec,
                    "desk user \(verb) needs one user name: letters, digits, . _ @ - (at most 64)")
                return .usage
            }
            switch verb {
            case "add":
                guard let roleText = args.one("--role"), let role = DeskRole(rawValue: roleText) else {
                    io.usageError(command: DeskCommand.spec, "desk user add needs --role viewer|reviewer|lead")
                    return .usage
                }
                guard let hash = readPassword(io: io) else { return .usage }
                let user = DeskUser(name: name, role: role, passwordHash: hash, passwordSetAt: now, createdAt: now)
                guard try store.addUser(user, by: actor) else {
                    io.usageError(command: DeskCommand.spec, "there is a user \(name) already; nothing changed")
                    return .usage
                }
                io.error("iapscreen desk: user \(name) added as \(role.rawValue)")
            case "password":
                guard try store.user(named: name) != nil else { return unknown(name, io) }
                guard let hash = readPassword(io: io) else { return .usage }
                _ = try store.setPassword(of: name, hash: hash, at: now, by: actor)
                io.error("iapscreen desk: \(name)'s password changed; their sessions have ended")
            case "disable", "enable":
                guard try store.setDisabled(name, verb == "disable", at: now, by: actor) else {
                    return unknown(name, io)
                }
                io.error("iapscreen desk: \(name) \(verb)d" + (verb == "disable" ? "; their sessions have ended" : ""))
            case "unlock":
                try store.unlock(name, at: now, by: actor)
                io.error("iapscreen desk: \(name)'s failed logins forgotten")
            default:
                let near = Spelling.nearest(verb, in: verbs).map { " (did you mean '\($0)'?)" } ?? ""
                io.usageError(
                    command: DeskCommand.spec,
                    "unknown 'desk user \(verb)'\(near); there are \(verbs.joined(separator: ", "))")
                return .usage
            }
            return .ok
        } catch {
            io.error("iapscreen desk: \(error); nothing changed")
            return .unreadableInput
        }
    }

    static let verbs = ["add", "password", "disable", "enable", "unlock", "list"]

    /// User names are typed at a login form and printed in the audit trail: plain ones only.
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._@-".unicodeScalars.contains($0))
            }
    }

    private static func unknown(_ name: String, _ io: Console) -> ExitStatus {
        io.usageError(command: DeskCommand.spec, "there is no user \(name); nothing changed")
        return .usage
    }

    /// One line of stdin (at a terminal: asked for, not echoed), hashed; nil after saying why not.
    static func readPassword(io: Console) -> String? {
        let terminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if terminal {
            FileHandle.standardError.write(Data("password (at least \(PasswordRule.minimumScalars) characters): ".utf8))
            tcgetattr(STDIN_FILENO, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        let line = readLine(strippingNewline: true)
        if terminal {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard var password = line else {
            io.usageError(command: DeskCommand.spec, "the password is read as one line on stdin, and there was none")
            return nil
        }
        if password.hasSuffix("\r") { password.removeLast() }
        do throws(DeskSecurityError) {
            return try PasswordHash.make(password: password)
        } catch {
            io.usageError(command: DeskCommand.spec, "\(error.reason); nothing changed")
            return nil
        }
    }
}
