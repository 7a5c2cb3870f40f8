import Desk
import DeskPages
import Foundation
import HTTPServer
import Ledger

#if canImport(Glibc)
    import Glibc
#endif

/// `iapscreen desk serve`: the desk on libmicrohttpd until SIGTERM or SIGINT.
enum DeskServeCommand {
    static func run(_ args: ParsedArguments, io: Console) -> ExitStatus {
        let spec = DeskCommand.spec
        var settings = DeskSettings()
        for (option, apply) in [
            ("--claim-minutes", { (n: Int64) in settings.claimMinutes = n }),
            ("--session-idle-minutes", { (n: Int64) in settings.sessionIdleMinutes = n }),
            ("--session-max-hours", { (n: Int64) in settings.sessionMaxHours = n }),
        ] as [(String, (Int64) -> Void)] {
            guard let text = args.one(option) else { continue }
            guard let n = Int64(text), (1...100_000).contains(n) else {
                io.usageError(command: spec, "\(option) must be a whole number from 1 to 100000")
                return .usage
            }
            apply(n)
        }
        let listen: ListenAddress
        do throws(HTTPServerError) {
            listen = try ListenAddress(parsing: args.one("--listen") ?? "127.0.0.1:8080")
        } catch {
            io.usageError(command: spec, "--listen: \(error.reason)")
            return .usage
        }
        let tls: TLSCredentials?
        switch (args.one("--tls-cert"), args.one("--tls-key")) {
        case (nil, nil):
            guard listen.isLoopback else {
                io.usageError(
                    command: spec,
                    "plain HTTP is served only on a loopback address (127.0.0.1, ::1): put a TLS proxy in front, or "
                        + "give --tls-cert and --tls-key to listen on \(listen)")
                return .usage
            }
            tls = nil
        case (let cert?, let key?):
            guard let c = FileManager.default.contents(atPath: cert), let k = FileManager.default.contents(atPath: key)
            else {
                io.usageError(
                    command: spec, "cannot read \(FileManager.default.isReadableFile(atPath: cert) ? key : cert)")
                return .usage
            }
            tls = TLSCredentials(certificatePEM: [UInt8](c), keyPEM: [UInt8](k))
        default:
            io.usageError(command: spec, "--tls-cert and --tls-key go together")
            return .usage
        }
        guard let place = LedgerCommand.place(args, "--ledger", command: spec, io: io) else { return .usage }
        guard let directory = DeskAssets.directory() else {
            io.error(
                "iapscreen desk: the desk's script and style sheet are not beside this iapscreen (its iapscreen_DeskPages.resources folder); reinstall it"
            )
            return .unreadableInput
        }
        let assets: DeskAssetFiles
        do throws(DeskAssetFiles.Missing) {
            assets = try DeskAssetFiles(directory: directory)
        } catch {
            io.error("iapscreen desk: \(error)")
            return .unreadableInput
        }
        guard let open = DeskLedger.open(place, command: "desk serve", io: io) else { return .unreadableInput }
        let desk = DeskService(settings: settings, pool: DeskStorePool(open: open), assets: assets)
        // Caught from here on: a signal that comes while the server starts is not lost.
        let signals = TerminationSignals()
        let server: HTTPServer
        do throws(HTTPServerError) {
            var configuration = HTTPServerConfiguration(listen: listen, tls: tls)
            configuration.log = { FileHandle.standardError.write(Data("iapscreen desk: \($0)\n".utf8)) }
            // An order id is any text a dump held: its page is /orders/<id, %2F and all>.
            configuration.limits.segmentsMayHoldSlashes = true
            configuration.refusal = DeskService.refusal
            server = try HTTPServer(configuration: configuration, handler: { desk.handle($0) })
        } catch {
            io.error("iapscreen desk: cannot serve on \(listen): \(error.reason)")
            return error.code == .tlsRefused ? .usage : .unreadableInput
        }
        let scheme = tls == nil ? "http" : "https"
        io.error(
            "iapscreen desk: serving \(scheme)://\(DeskServeCommand.host(listen)):\(server.port)/ over \(place.shown); "
                + "SIGTERM or SIGINT stops it")
        let signal = signals.wait()
        let cut = server.stop()
        io.error(
            "iapscreen desk: stopped by \(signal == SIGTERM ? "SIGTERM" : "SIGINT")"
                + (cut == 0 ? "; every request in flight was answered" : "; \(cut) requests were cut short"))
        return .ok
    }

    /// The address's host part as a URL writes it.
    static func host(_ listen: ListenAddress) -> String {
        let text = listen.description
        guard let colon = text.lastIndex(of: ":") else { return text }
        return String(text[..<colon])
    }
}
