import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TestSupport

/// Issue 43, case 6: one client cannot stall the service. Its connections are bounded per address, a request's
/// notification content is bounded when it is registered, and a shutdown does not wait on a trickling body beyond
/// the drain deadline.
@Suite struct FairnessTests {
    /// One address holding many idle connections keeps only its share; another address's probe is answered at
    /// once. The header timeout is ten minutes, so without the per-address bound the probe would wait that long.
    @Test func idleConnectionsOfOneAddressDoNotStallAnothersHealthProbe() async throws {
        let server = try TestServer()
        var configuration = server.configuration()
        configuration.connections = ConnectionLimits(headerTimeout: .seconds(600), idleTimeout: .seconds(600), maximumConnections: 16,
                                                     maximumConnectionsPerAddress: 8)
        try await server.run(configuration: configuration) { client in
            let port = try #require(client.port)
            var idle: [RawConnection] = []
            for _ in 0..<40 { idle.append(try RawConnection(port: port)) }
            // Beyond its 8, the address's connections are closed by the server, not left in the backlog.
            var closed = 0
            for c in idle[8...] where await c.isClosed(within: .seconds(60)) { closed += 1 }
            #expect(closed == 32)
            let probe = try RawConnection(port: port, from: "127.0.0.2")
            probe.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            var answer = ""
            for _ in 0..<600 where answer.httpStatus == nil {
                let r = await probe.receive(timeout: .milliseconds(100))
                answer += r.text
                if r.closed { break }
            }
            #expect(answer.httpStatus == 200, "\(answer)")
            // The first 8 are still open: the bound refuses new connections, it does not drop held ones.
            #expect(idle[0].send(Array(" ".utf8)))
            idle.removeAll()
        }
    }

    /// A request whose content could make every notification huge is refused when registered (a 4xx: it can never
    /// be accepted as it is), not rendered into the journal and the sinks for every fix.
    @Test func aRequestWithHugeContentIsRefusedAtRegistration() async throws {
        let server = try TestServer()
        try await server.run { client in
            func put(_ title: String, userInfo: String = "{}") async throws -> TestResponse {
                let body = """
                    {"content": {"title": "\(title)", "userInfo": \(userInfo)},
                     "trigger": {"type": "location", "repeats": true,
                                 "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
                    """
                return try await client.execute(uri: "/v1/requests/big", method: .put, body: ByteBuffer(string: body))
            }
            let large = try await put(String(repeating: "x", count: 5000))
            #expect(large.status == .badRequest || large.status == .unprocessableContent, "\(large.status)")
            #expect(large.text.contains("content") && large.text.contains("4096"), "\(large.text)")
            let info = try await put("t", userInfo: #"{"blob": "\#(String(repeating: "y", count: 5000))"}"#)
            #expect(info.status == .badRequest || info.status == .unprocessableContent, "\(info.status)")
            let placeholders = try await put(String(repeating: "{device}", count: 40))
            #expect(placeholders.status == .badRequest || placeholders.status == .unprocessableContent, "\(placeholders.status)")
            #expect(placeholders.text.contains("placeholders"), "\(placeholders.text)")
            let fine = try await put(String(repeating: "x", count: 1000) + "{device}")
            #expect(fine.status == .created, "\(fine.text)")
        }
    }

    /// SIGTERM while a client trickles a body (the body timeout is ten minutes): the drain deadline closes the
    /// connection and the shutdown completes.
    @Test func shutdownDoesNotWaitForATricklingBodyPastTheDrainDeadline() async throws {
        let directory = try TestServer().directory
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path,
                                                  "--listen", "127.0.0.1:0", "--http-body-timeout", "600", "--http-drain-timeout", "1"],
                                      directory: directory)
        try await server.waitUntilListening()
        // A full batch of lines first (an HTTP body is committed every 4096 records): once it shows in the device's
        // state, the request is certainly being read, and SIGTERM finds it in flight.
        let start = Int(Date().timeIntervalSince1970) - 5000
        let batch = (0..<4096).map { fixLine("trickler", start - 1_760_000_000 + $0, inside: false) }.joined(separator: "\n") + "\n"
        let c = try RawConnection(port: server.port)
        c.send("POST /v1/fixes HTTP/1.1\r\nHost: t\r\nContent-Length: \(batch.utf8.count + 100_000)\r\n\r\n" + batch)
        let reading = try await eventually(timeout: .seconds(300)) { try await server.get("/v1/devices/trickler").status == .ok }
        #expect(reading, "\(server.log)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(try await server.waitForExit(seconds: 300), "\(server.log)")
        #expect(server.process.terminationReason == .exit)
        #expect(server.log.contains("shutdown: drain deadline passed"), "\(server.log)")
        #expect(await c.isClosed(within: .seconds(5)))
    }

    /// Requests are added in one pass over the body (no scan of those before per request): one named twice keeps
    /// the last, as one row.
    @Test func aBodyNamingARequestTwiceKeepsTheLast() async throws {
        let server = try TestServer()
        try await server.run { client in
            let body = "[" + [requestJSON("a", title: "first"), requestJSON("b"), requestJSON("a", title: "second")].joined(separator: ",") + "]"
            let r = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: body))
            #expect(r.status == .ok || r.status == .created, "\(r.text)")
            let a = try await client.execute(uri: "/v1/requests/a", method: .get)
            #expect(a.text.contains("second") && !a.text.contains("first"), "\(a.text)")
            let list = try await client.execute(uri: "/v1/requests", method: .get)
            #expect(list.text.components(separatedBy: #""identifier":"a""#).count == 2, "\(list.text)")
        }
    }
}
