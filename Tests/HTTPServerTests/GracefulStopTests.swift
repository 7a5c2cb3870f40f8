import Foundation
import HTTPMessages
import HTTPServer
import Synchronization
import Testing

@Suite("Stopping: requests in flight are answered whole, then the server stops")
struct GracefulStopTests {
    private func waitUntil(_ condition: () -> Bool) {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() && ContinuousClock.now < deadline { usleep(2_000) }
    }

    @Test("a slow handler in flight when stop() is called: its answer arrives whole, then nothing is accepted")
    func slowHandler() throws {
        let body = String(repeating: "slow answer ", count: 20_000)
        let server = try startServer(handler: { _ in
            usleep(800_000)
            return .text(body)
        })
        let port = server.port
        let client = try RawClient(port: port)
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        waitUntil { server.requestsInFlight == 1 }
        let started = ContinuousClock.now
        let cutShort = server.stop()
        let response = try #require(client.response())
        #expect(response.status == 200)
        #expect(response.text == body)
        #expect(response.header("Connection") == "close", "keep-alive clients are told to go")
        #expect(cutShort == 0)
        #expect(ContinuousClock.now - started < .seconds(4))
        #expect(throws: ClientError.self) { try RawClient(port: port) }
        #expect(server.stop() == 0, "a second stop does nothing")
    }

    @Test("a request that never finishes holds stop() for stopGrace at most")
    func neverFinishes() throws {
        let server = try startServer { $0.stopGrace = .milliseconds(300) }
        let client = try RawClient(port: server.port)
        client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf")
        waitUntil { server.requestsInFlight == 1 }
        let started = ContinuousClock.now
        #expect(server.stop() == 1)
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(300) && took < .seconds(3), "\(took)")
        #expect(client.receiveAll().isEmpty)
    }
}

@Suite("Stopping while connections keep coming")
struct StopUnderLoadTests {
    /// libmicrohttpd 0.9.75 with epoll aborted the process now and then here when the server
    /// was quiesced while its workers took the listening socket in and out of their epoll sets
    /// (`StartedDaemon`): stopping, over and over, with clients connecting, must never abort.
    @Test("stopping a server that clients keep connecting to, 150 times, ends every time")
    func stopWhileConnecting() throws {
        for _ in 0..<150 {
            let server = try startServer { $0.connectionLimit = 4 }
            let port = server.port
            let stop = Atomic<Bool>(false)
            let clients = (0..<3).map { _ in
                Thread {
                    while !stop.load(ordering: .relaxed) {
                        guard let c = try? RawClient(port: port) else { continue }
                        _ = c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    }
                }
            }
            for c in clients { c.start() }
            usleep(20_000)
            server.stop()
            stop.store(true, ordering: .relaxed)
        }
    }
}
