import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// A client's mistakes are 4xx problem documents, never a 500 or an empty answer: over-long chunked bodies, bodies
/// cut off, bad chunk sizes, unknown methods, over-long headers and URIs, bad query values.
@Suite struct ClientErrorTests {
    static func chunked(_ method: String, _ path: String, _ body: String) -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
    }

    /// Sends `raw` on a fresh connection (optionally ending the client's side after it) and returns the answer.
    static func exchange(_ port: Int, _ raw: String, endAfterSending: Bool = false) async throws -> String {
        let c = try RawConnection(port: port)
        c.send(raw)
        if endAfterSending { c.shutdownWrite() }
        // Each answer ends with the server closing the connection, so a long bound costs nothing when it passes;
        // starved beside the whole suite, the in-process server has taken over 5 s.
        return await c.receive(timeout: .seconds(60)).text
    }

    @Test func chunkedBodiesOverTheLimitAre413() async throws {
        try await TestServer().run(limit: 1000) { client in
            let port = try #require(client.port)
            let big = #"{"identifier":"x","pad":""# + String(repeating: "x", count: 3000) + #""}"#
            for (method, path) in [("PUT", "/v1/requests/x"), ("POST", "/v1/requests")] {
                let answer = try await Self.exchange(port, Self.chunked(method, path, big))
                #expect(answer.httpStatus == 413, "\(method) \(path): \(answer)")
                #expect(answer.contains("application/problem+json") && answer.contains("1000 bytes"), "\(answer)")
            }
        }
    }

    @Test func bodiesCutOffOrBadlyChunkedAre400() async throws {
        try await TestServer().run { client in
            let port = try #require(client.port)
            for path in ["/v1/requests/x", "/v1/fixes"] {
                let method = path == "/v1/fixes" ? "POST" : "PUT"
                let torn = try await Self.exchange(port, "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 100\r\n\r\n{\"a\":",
                                             endAfterSending: true)
                #expect(torn.httpStatus == 400, "\(path) cut off: \(torn)")
                #expect(torn.contains("before its body was complete"), "\(torn)")
                let badChunk = try await Self.exchange(port, "\(method) \(path) HTTP/1.1\r\nHost: t\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n")
                #expect(badChunk.httpStatus == 400, "\(path) bad chunk: \(badChunk)")
                #expect(badChunk.contains("invalid size line"), "\(badChunk)")
            }
            // On a connection of its own: the test client's, idle through the exchanges above, may have been closed
            // by the server's idle timeout when they were slow (a loaded machine).
            let metrics = try await Self.exchange(port, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            #expect(metrics.contains(#"geotrigger_http_client_errors_total{status="400"}"#))
        }
    }

    @Test func malformedRequestLinesAndHeadersAreProblems() async throws {
        try await TestServer().run { client in
            let port = try #require(client.port)
            let method = try await Self.exchange(port, "FROB /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(method.httpStatus == 400 && method.contains("application/problem+json"), "\(method)")
            #expect(method.contains("unknown request method"), "\(method)")
            let header = try await Self.exchange(port, "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n")
            #expect(header.httpStatus == 431 && header.contains("application/problem+json"), "\(header.prefix(300))")
            let uri = try await Self.exchange(port, "GET /healthz?" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(uri.httpStatus == 431 && uri.contains("application/problem+json"), "\(uri.prefix(300))")
            // The server is still there.
            #expect(try await Self.exchange(port, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").httpStatus == 200)
        }
    }

    @Test func deadLetterLimitMustBeAnInteger() async throws {
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/outbox?deadLetters=abc", method: .get)
            #expect(r.status == .badRequest)
            #expect(r.text.contains("deadLetters must be an integer, got 'abc'"))
            #expect(try await client.execute(uri: "/v1/outbox?deadLetters=5", method: .get).status == .ok)
        }
    }
}
