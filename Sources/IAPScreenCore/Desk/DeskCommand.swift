import Desk
import Foundation
import IAPBasics
import JSONText
import Ledger

/// `iapscreen desk serve|user|audit` (CONTRACT §14; docs/desk.md): security's review queue,
/// served over the ledger, with its users and its audit trail.
enum DeskCommand {
    static let spec = CommandSpec(
        name: "desk",
        summary: "Serve the review desk, manage its users, print its audit trail: `iapscreen desk serve|user|audit`.",
        options: [
            OptionSpec(
                "--ledger", .one, valueName: "URL",
                help: "sqlite:PATH (default sqlite:iapscreen-ledger.sqlite) or postgres://… (a libpq URI)."),
            OptionSpec(
                "--listen", .one, valueName: "HOST:PORT",
                help: "serve: where to listen (default 127.0.0.1:8080); plain HTTP only on a loopback address."),
            OptionSpec("--tls-cert", .one, valueName: "FILE", help: "serve: PEM certificate (chain) for HTTPS."),
            OptionSpec("--tls-key", .one, valueName: "FILE", help: "serve: its PEM private key."),
            OptionSpec("--claim-minutes", .one, valueName: "N", help: "serve: how long a claim lasts (default 30)."),
            OptionSpec(
                "--session-idle-minutes", .one, valueName: "N",
                help: "serve: a session ends after N minutes without a request (default 30)."),
            OptionSpec(
                "--session-max-hours", .one, valueName: "N",
                help: "serve: a session ends N hours after login (default 12)."),
            OptionSpec(
                "--role", .one, help: "user add: viewer, reviewer or lead.", choices: ["viewer", "reviewer", "lead"]),
            OptionSpec(
                "--since", .one, valueName: "TIME", help: "audit: entries at or after TIME (YYYY-MM-DDTHH:MM:SSZ)."),
        ],
        positional: PositionalSpec(
            "serve|user VERB [NAME]|audit",
            "serve: the desk; user add|password|disable|enable|unlock|list NAME; audit: the trail as JSON lines.",
            max: 3, required: true),
        details: """
            serve answers until SIGTERM or SIGINT, then finishes the requests in flight. It works
            while a screen run holds the ledger: a verdict given then takes effect from the next run.
            user add NAME --role R and user password NAME read the password as one line on stdin
            (at least 12 characters); only its Argon2id hash is kept.
            audit prints every entry of the audit trail, oldest first, as JSON lines.
            Exit status: 0 done (serve: stopped by a signal); 2 bad usage, an address that is not
            loopback without --tls-cert and --tls-key, a TLS file that cannot be used; 3 the
            ledger cannot be opened, or the address cannot be listened on.
            """)

    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        guard let verb = args.positionals.first else {
            io.usageError(command: spec, "say what to do: desk serve, desk user …, or desk audit")
            return .usage
        }
        switch verb {
        case "serve":
            guard args.positionals.count == 1 else {
                io.usageError(command: spec, "desk serve takes no more words")
                return .usage
            }
            return DeskServeCommand.run(args, io: io)
        case "user", "audit":
            if verb == "audit", args.positionals.count != 1 {
                io.usageError(command: spec, "desk audit takes no more words; --since TIME picks where to start")
                return .usage
            }
            guard let place = LedgerCommand.place(args, "--ledger", command: spec, io: io) else { return .usage }
            guard let open = DeskLedger.open(place, command: "desk", io: io) else { return .unreadableInput }
            let store: any DeskStore
            do throws(LedgerError) {
                store = try open()
            } catch {
                io.error("iapscreen desk: cannot open the ledger: \(error)")
                return .unreadableInput
            }
            if verb == "user" {
                return DeskUserCommand.run(args, words: Array(args.positionals.dropFirst()), store: store, io: io)
            }
            return audit(args, store: store, io: io)
        default:
            let near = Spelling.nearest(verb, in: ["serve", "user", "audit"]).map { " (did you mean '\($0)'?)" } ?? ""
            io.usageError(command: spec, "unknown subcommand '\(verb)'\(near); there are serve, user and audit")
            return .usage
        }
    }

    /// The audit trail as JSON lines, oldest first, a page at a time.
    static func audit(_ args: ParsedArguments, store: any DeskStore, io: Console) -> ExitStatus {
        let since = args.one("--since")
        if let s = since, !QueueFilterReading.isTimeText(s) {
            io.usageError(command: spec, "--since must be a time as YYYY-MM-DDTHH:MM:SSZ")
            return .usage
        }
        var lastID: Int64 = 0
        do throws(LedgerError) {
            while true {
                let page = try store.audit(since: since, afterID: lastID, limit: 10_000)
                guard let last = page.last else { break }
                for e in page { io.out.write(e.jsonLine + "\n") }
                lastID = last.id
            }
            io.out.flush()
            return .ok
        } catch {
            io.error("iapscreen desk audit: \(error)")
            return .unreadableInput
        }
    }
}
