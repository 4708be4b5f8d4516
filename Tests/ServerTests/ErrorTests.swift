import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TestSupport

/// Every error is an `application/problem+json` document with a precise detail.
@Suite struct ErrorTests {
    @Test func malformedJSONNamesTheByte() async throws {
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/requests/x", method: .put, body: ByteBuffer(string: #"{"content":"#))
            #expect(r.status == .badRequest)
            #expect(r.headers[.contentType] == "application/problem+json")
            #expect(r.text.contains("at byte 11"))
        }
    }

    @Test func unknownPlaceholderIsRejectedWithItsPath() async throws {
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/requests/x", method: .put, body: ByteBuffer(string: requestJSON(title: "{nope}")))
            #expect(r.status == .unprocessableContent)
            #expect(r.text.contains(#""path":"content.title""#))
            #expect(r.text.contains("unknown placeholder {nope}"))
            // All or none: nothing of a bad batch is added.
            let batch = "[" + requestJSON("good") + "," + requestJSON("bad", title: "{nope}") + "]"
            let b = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: batch))
            #expect(b.status == .unprocessableContent)
            #expect(b.text.contains(#""path":"[1].content.title""#))
            #expect(try await client.execute(uri: "/v1/requests/good", method: .get).status == .notFound)
        }
    }

    @Test func pathAndBodyIdentifierMustAgree() async throws {
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/requests/x", method: .put, body: ByteBuffer(string: requestJSON("y")))
            #expect(r.status == .unprocessableContent)
        }
    }

    @Test func oversizedBodiesAreRefused() async throws {
        try await TestServer().run(limit: 512) { client in
            let big = ByteBuffer(string: String(repeating: " ", count: 600) + requestJSON())
            let r = try await client.execute(uri: "/v1/requests/x", method: .put, body: big)
            #expect(r.status == .contentTooLarge)
            #expect(r.text.contains("512 bytes"))
            let fixes = ByteBuffer(string: Array(repeating: fixLine("d", 0, inside: true), count: 20).joined(separator: "\n"))
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, body: fixes).status == .contentTooLarge)
        }
    }

    @Test func unknownRoutesAndDevicesAre404Problems() async throws {
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/nothing", method: .get)
            #expect(r.status == .notFound)
            #expect(r.headers[.contentType] == "application/problem+json")
            #expect(try await client.execute(uri: "/v1/devices/nobody", method: .get).status == .notFound)
        }
    }

    @Test func tokenIsRequiredAndChecked() async throws {
        try await TestServer().run(token: "s3cret") { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/requests", method: .get).status == .unauthorized)
            let wrong = try await client.execute(uri: "/v1/requests", method: .get, headers: [.authorization: "Bearer s3cre"])
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(uri: "/v1/requests", method: .get, headers: [.authorization: "Bearer s3cret"])
            #expect(right.status == .ok)
        }
    }

    @Test func nonLoopbackAddressWithoutTokenIsRefused() throws {
        let configuration = ServerConfiguration(host: "0.0.0.0", port: 0)
        #expect(throws: ServerConfigurationError.self) { try configuration.validate() }
        #expect(throws: Never.self) { try ServerConfiguration(host: "0.0.0.0", port: 0, token: "t").validate() }
    }
}
