import DeskSecurity
import Foundation
import IAPBasics
import Ledger
import LoopbackHTTP
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `desk N [clients]`: a SQLite ledger of N flagged orders (a tenth of it, then all of it),
/// `iapscreen desk serve` on loopback, and CLIENTS keep-alive clients (default 50) logging in
/// and working it as reviewers do — queue pages, order pages, the API's queue and orders,
/// `next` and verdicts — for at most 2 000 requests each or 60 seconds. Prints the latency
/// per kind (p50, p99, max), errors, whether every verdict answered 200 is in the ledger, and
/// the server's resident memory at both sizes.
func runDeskBenchmark(orders count: Int, clients: Int, say: (String) -> Void) {
    let dir = NSTemporaryDirectory() + "iapscreen-bench-desk-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for size in [max(1, count / 10), count] {
        let path = dir + "/ledger-\(size).sqlite"
        do {
            try DeskBenchWorld.fill(path, orders: size, reviewers: clients)
        } catch {
            say("desk: cannot fill the ledger: \(error)")
            return
        }
        say("desk: \(size) flagged orders, \(clients) clients")
        guard let server = DeskBenchServer.start(ledger: path, say: say) else { return }
        var outcome = DeskBenchLoad.Outcome()
        for think in [0, 100] {
            say(
                think == 0
                    ? "  back to back (each client sends its next request as soon as it has an answer):"
                    : "  at a reviewer's pace (each client waits \(think) ms between rounds of 4 to 7 requests):")
            let before = server.cpuSeconds()
            let run = DeskBenchLoad.run(
                port: server.port, clients: clients, orders: size, thinkMilliseconds: think, say: say)
            outcome.verdicts += run.verdicts
            say(
                String(
                    format: "  server CPU %.1f s, %.0f µs a request", server.cpuSeconds() - before,
                    (server.cpuSeconds() - before) * 1e6 / Double(max(1, run.requests))))
        }
        let memory = server.memory()
        server.stop()
        do {
            let kept = try DeskBenchWorld.verdictsKept(path)
            say(
                "  verdicts answered 200: \(outcome.verdicts), in the ledger: \(kept)"
                    + (kept == outcome.verdicts ? " (none lost)" : " — LOST \(outcome.verdicts - kept)"))
        } catch {
            say("  cannot count the ledger's verdicts: \(error)")
        }
        say("  server memory: \(memory)")
    }
}

/// The ledger the desk benchmark serves: N flagged orders over 5 severities and 8 rules, from
/// 1 run, and the reviewers' users (one password each, hashed once).
enum DeskBenchWorld {
    static let password = "correct horse battery staple"
    static let rules = [
        "replayed-transaction", "product-mismatch", "amount-mismatch", "sandbox-receipt", "forged-receipt",
        "expired-subscription", "refunded-still-credited", "orphan-receipt",
    ]

    static func fill(_ path: String, orders count: Int, reviewers: Int) throws {
        let ledger = try SQLiteLedger(path: path)
        let line =
            #"{"rule":"RULE","severity":"high","order_id":"ID","message":"the receipt's transaction was credited before","evidence":{"transaction_id":"2000000123456789","first_order":"ORD-1"}}"#
        var batch: [FlaggedOrderRecord] = []
        func flush() throws {
            try ledger.record(
                RunRecord(
                    startedAt: SystemClock.now(), finishedAt: SystemClock.now(), orders: batch.count,
                    flagged: batch.count,
                    newClaims: [], reported: [], flaggedOrders: batch))
            batch = []
        }
        for i in 0..<count {
            let rule = rules[i % rules.count]
            let id = "ORD-\(10_000_000 + i)"
            batch.append(
                FlaggedOrderRecord(
                    orderID: id, userID: "user-\(i % 9_973)", platform: i % 2 == 0 ? "ios" : "android",
                    productID: "gems_100", amount: "4.99", currency: "USD", createdAt: "2026-12-01T10:00:00Z",
                    severity: i % 5, rules: [rule], transactions: ["\(2_000_000_000_000_000 + i)"],
                    receipt: #"[["kind","storekit2"],["transaction","\#(2_000_000_000_000_000 + i)"]]"#,
                    findings: [
                        (
                            rule,
                            line.replacingOccurrences(of: "RULE", with: rule).replacingOccurrences(of: "ID", with: id)
                        )
                    ]))
            if batch.count == 50_000 { try flush() }
        }
        if !batch.isEmpty { try flush() }
        let desk = try SQLiteDeskStore(path: path)
        let hash = try PasswordHash.make(password: password)
        let now = SystemClock.now().millis
        for n in 0..<reviewers {
            _ = try desk.addUser(
                DeskUser(
                    name: "rev\(n)", role: n % 10 == 9 ? .viewer : .reviewer, passwordHash: hash, passwordSetAt: now,
                    createdAt: now), by: "bench")
        }
    }

    /// Verdicts the desk kept (not yet applied by a run: no run ran).
    static func verdictsKept(_ path: String) throws -> Int {
        let desk = try SQLiteDeskStore(path: path)
        return try desk.audit(since: nil, afterID: 0, limit: 10_000_000).count { $0.action == .verdict }
    }
}

/// `iapscreen desk serve` as its own process, beside this benchmark.
final class DeskBenchServer {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    static func start(ledger: String, say: (String) -> Void) -> DeskBenchServer? {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("iapscreen")
        let p = Process()
        p.executableURL = binary
        p.arguments = ["desk", "serve", "--ledger", "sqlite:" + ledger, "--listen", "127.0.0.1:0"]
        let err = Pipe()
        p.standardError = err
        do { try p.run() } catch {
            say("desk: cannot start \(binary.path): \(error)")
            return nil
        }
        // "… serving http://127.0.0.1:PORT/ …"
        var said = ""
        let handle = err.fileHandleForReading
        while !said.contains("serving") || !said.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = said.range(of: "127.0.0.1:"),
            let port = Int(said[range.upperBound...].prefix { $0.isNumber })
        else {
            say("desk: the server did not say where it listens: \(said)")
            p.terminate()
            return nil
        }
        return DeskBenchServer(process: p, port: port)
    }

    /// CPU seconds the server used so far (utime + stime from /proc, at 100 ticks a second).
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS and VmHWM from /proc.
    func memory() -> String {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return "unknown" }
        // RssAnon is the server's own memory; RssFile the ledger's pages it maps (the page cache's).
        let lines = status.split(separator: "\n").filter {
            $0.hasPrefix("VmRSS") || $0.hasPrefix("VmHWM") || $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile")
        }
        return lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .joined(separator: ", ")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// The clients: each logs in, then loops over a reviewer's mix of requests.
enum DeskBenchLoad {
    struct Outcome {
        var verdicts = 0
        var requests = 0
    }

    static let maxRequestsPerClient = 2_000
    static let maxSeconds = 30.0

    static func run(port: Int, clients: Int, orders: Int, thinkMilliseconds: Int, say: (String) -> Void) -> Outcome {
        let latencies = Mutex<[String: [Double]]>([:])
        let errors = Mutex<[String: Int]>([:])
        let verdicts = Atomic<Int>(0)
        let started = SystemClock.monotonicSeconds()
        // A thread each: concurrentPerform would run only as many clients at once as there are cores.
        let group = DispatchGroup()
        for n in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                work(n)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        @Sendable func work(_ n: Int) {
            let client = LoopbackHTTPClient(port: port)
            func timed(_ kind: String, _ expect: Set<Int>, _ call: () throws -> LoopbackHTTPClient.Response)
                -> LoopbackHTTPClient.Response?
            {
                let t = SystemClock.monotonicSeconds()
                do {
                    let r = try call()
                    let ms = (SystemClock.monotonicSeconds() - t) * 1000
                    latencies.withLock { $0[kind, default: []].append(ms) }
                    if !expect.contains(r.status) { errors.withLock { $0["\(kind) \(r.status)", default: 0] += 1 } }
                    return r
                } catch {
                    errors.withLock { $0["\(kind) \(error)", default: 0] += 1 }
                    return nil
                }
            }
            // Log in as a browser does: the form, then its POST.
            guard let form = timed("login form", [200], { try client.request("GET", "/login") }),
                let csrf = ResponseFields.hidden("csrf", in: form.text),
                timed(
                    "login", [303],
                    {
                        try client.request(
                            "POST", "/login",
                            body: Array(
                                "username=rev\(n)&password=\(DeskBenchWorld.password.replacingOccurrences(of: " ", with: "+"))&csrf=\(csrf)"
                                    .utf8),
                            contentType: "application/x-www-form-urlencoded")
                    }) != nil,
                let me = timed("api me", [200], { try client.request("GET", "/api/v1/me") }),
                let token = ResponseFields.jsonString("csrf", in: me.text)
            else { return }
            let reviewer = n % 10 != 9
            var random = SeededRandom(seed: UInt64(n + 1))
            var sent = 0
            var round = 0
            while sent < maxRequestsPerClient, SystemClock.monotonicSeconds() - started < maxSeconds {
                round += 1
                if thinkMilliseconds > 0 { usleep(useconds_t(thinkMilliseconds * 1000)) }
                let id = "ORD-\(10_000_000 + Int(random.next() % UInt64(max(1, orders))))"
                _ = timed("queue page", [200]) { try client.request("GET", "/queue") }
                _ = timed("api queue", [200]) { try client.request("GET", "/api/v1/queue?status=open&limit=50") }
                _ = timed("order page", [200]) { try client.request("GET", "/orders/\(id)") }
                _ = timed("api order", [200]) { try client.request("GET", "/api/v1/orders/\(id)") }
                sent += 4
                // A reviewer decides an order every fifth round.
                guard reviewer, round % 5 == 0 else { continue }
                let header = [("X-CSRF-Token", token)]
                guard
                    let next = timed(
                        "api next", [200, 404], { try client.request("POST", "/api/v1/next", headers: header) }),
                    next.status == 200, let claimed = ResponseFields.jsonString("order_id", in: next.text),
                    let order = timed("api order", [200], { try client.request("GET", "/api/v1/orders/\(claimed)") }),
                    let version = ResponseFields.jsonNumber("version", in: order.text)
                else { continue }
                let body = Array(#"{"verdict":"fraud","note":"bench","version":\#(version)}"#.utf8)
                if let r = timed(
                    "api verdict", [200],
                    {
                        try client.request(
                            "POST", "/api/v1/orders/\(claimed)/verdict", body: body, contentType: "application/json",
                            headers: header)
                    }), r.status == 200
                {
                    verdicts.add(1, ordering: .relaxed)
                }
                sent += 3
            }
        }
        let seconds = SystemClock.monotonicSeconds() - started
        let all = latencies.withLock { $0 }
        let total = all.values.reduce(0) { $0 + $1.count }
        say(String(format: "  %d requests in %.1f s (%.0f a second)", total, seconds, Double(total) / seconds))
        for (kind, values) in all.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted()
            func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] }
            say(
                String(
                    format: "  %-12@ %6d   p50 %6.2f ms   p99 %6.2f ms   max %7.2f ms", kind as NSString, sorted.count,
                    at(0.5), at(0.99), sorted.last ?? 0))
        }
        let failed = errors.withLock { $0 }
        say(
            failed.isEmpty
                ? "  errors: none" : "  errors: " + failed.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
        return Outcome(verdicts: verdicts.load(ordering: .relaxed), requests: total)
    }
}
