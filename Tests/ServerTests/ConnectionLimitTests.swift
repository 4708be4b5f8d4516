import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// Slow or idle clients cannot hold connections: a head must arrive within the header timeout, a body within the
/// body timeout (408), a keep-alive connection is closed when idle, and the number of connections is bounded below
/// the descriptor limit, so a health probe is answered however many sockets sit open.
@Suite struct ConnectionLimitTests {
    static func configuration(_ server: TestServer) -> ServerConfiguration {
        var c = server.configuration()
        c.connections = ConnectionLimits(headerTimeout: .milliseconds(600), bodyTimeout: .milliseconds(800), idleTimeout: .milliseconds(600))
        return c
    }

    @Test func aTricklingHeadIsCutAtTheHeaderTimeout() async throws {
        let server = try TestServer()
        try await server.run(configuration: Self.configuration(server)) { client in
            let c = try RawConnection(port: try #require(client.port))
            let start = ContinuousClock.now
            // One byte every 100 ms: the head would take seconds.
            var closed = false
            for byte in "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n".utf8 {
                if !c.send([byte]) { closed = true; break }
                if await c.isClosed(within: .milliseconds(100)) { closed = true; break }
            }
            let elapsed = ContinuousClock.now - start
            #expect(closed, "a trickling head was never cut")
            // Cut before the whole head was in (however slowly a loaded machine trickles it), and not before the
            // header timeout: a bound no busy machine can miss.
            #expect(elapsed >= .milliseconds(500), "closed after \(elapsed)")
        }
    }

    @Test func aTricklingBodyIsAnswered408() async throws {
        let server = try TestServer()
        var configuration = Self.configuration(server)
        // The handler answers 408 on Swift's pool, which this process's busiest suites can hold for seconds (a
        // correct run once saw the connection closed by the 2 s grace with no answer).
        configuration.connections.bodyTimeoutGrace = .seconds(30)
        try await server.run(configuration: configuration) { client in
            let c = try RawConnection(port: try #require(client.port))
            let start = ContinuousClock.now
            c.send("PUT /v1/requests/x HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n{")
            var answer = ""
            var sent = 0
            // One byte every 100 ms or more, 100 of them: the body would take over 10 s.
            for _ in 0..<100 {
                c.send(" ")
                sent += 1
                let r = await c.receive(timeout: .milliseconds(100))
                answer += r.text
                if r.closed || !answer.isEmpty { break }
            }
            answer += await c.receive(timeout: .milliseconds(500)).text
            let elapsed = ContinuousClock.now - start
            #expect(answer.httpStatus == 408, "\(answer)")
            #expect(answer.contains("application/problem+json"))
            // Answered while the body still trickled in, so timed from the body's start, not reset by each byte: told
            // by the bytes sent, not by a time bound a loaded machine can miss (runs beside the whole suite took from
            // 4.5 s to over 9 s).
            #expect(sent < 100, "the whole trickle was sent before an answer (\(elapsed))")
            #expect(elapsed >= .milliseconds(700), "answered after \(elapsed)")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosed() async throws {
        let server = try TestServer()
        var configuration = Self.configuration(server)
        // Only the idle timeout is under test: a head timeout as short would close the connection before its
        // request is read when the whole suite starves this process (CI saw it closed with no answer).
        configuration.connections.headerTimeout = .seconds(60)
        try await server.run(configuration: configuration) { client in
            let c = try RawConnection(port: try #require(client.port))
            c.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            var first = ""
            let sent = ContinuousClock.now
            // Until the answer is in (or the connection closed without one, which fails below): 60 s is room for
            // a loaded machine, not a bound a correct server is held to.
            while !first.contains("\r\n\r\n"), ContinuousClock.now - sent < .seconds(60) {
                let r = await c.receive(timeout: .milliseconds(50))
                first += r.text
                if r.closed { break }
            }
            #expect(first.httpStatus == 200, "\(first)")
            // Without the idle timeout the connection stays open for good; 60 s leaves room for a loaded machine
            // (the whole suite runs side by side on two cores).
            #expect(await c.isClosed(within: .seconds(60)))
            // Timed from the request's sending: the idle time starts once the answer is out, and on a loaded machine
            // reading the answer here can take most of the 600 ms (CI saw it closed 58 ms after the answer was read);
            // 500 leaves the timer some slack.
            let elapsed = ContinuousClock.now - sent
            #expect(elapsed >= .milliseconds(500), "closed \(elapsed) after the request was sent")
        }
    }

    /// The real executable under a 256-descriptor limit with 300 idle connections: probes are still answered. All from
    /// one address, so without the per-address bound: this is the global bound's test (FairnessTests has the other).
    @Test func healthIsAnsweredWith300IdleConnectionsUnder256Descriptors() async throws {
        let directory = try TestServer().directory
        let serve = ServeProcess.executable.path
        let process = try ServeProcess(arguments: [], directory: directory, shell: """
            ulimit -n 256 && exec '\(serve)' serve --database '\(directory.path)/g.sqlite' --listen 127.0.0.1:0 --http-header-timeout 2 \\
                --http-max-connections-per-address 0
            """)
        try await process.waitUntilListening()
        #expect(process.log.contains("http.maxConnections lowered below the descriptor limit"), "\(process.log)")
        var idle: [RawConnection] = []
        for _ in 0..<300 { idle.append(try RawConnection(port: process.port)) }
        let start = ContinuousClock.now
        var answered = false
        // Bounded by tries, not by a total time a busy machine can miss: a probe that is never answered fails all 20.
        for _ in 0..<20 where !answered {
            // A probe with a timeout of its own, as a load balancer would send.
            if let probe = try? RawConnection(port: process.port) {
                probe.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                answered = await probe.receive(timeout: .seconds(5)).text.httpStatus == 200
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(answered, "no probe answered within \(elapsed)")
        #expect(process.process.isRunning)
        idle.removeAll()
        await process.stop()
    }
}
