import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `/v1/requests`: add, replace, batch, list with paging, fetch, remove one, several, all; delivered.
@Suite struct RequestEndpointTests {
    @Test func putAddsThenReplaces() async throws {
        try await TestServer().run { client in
            let first = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            #expect(first.status == .created)
            #expect(first.text.contains(#""outcome":"added""#))
            let second = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON("alex")))
            #expect(second.status == .ok)
            #expect(second.text.contains(#""outcome":"replaced""#))
            let got = try await client.execute(uri: "/v1/requests/alex", method: .get)
            #expect(got.status == .ok)
            #expect(got.text.contains(#""identifier":"alex""#))
        }
    }

    @Test func batchListPagingAndRemoval() async throws {
        try await TestServer().run { client in
            let batch = "[" + ["a", "b", "c", "d"].map { requestJSON($0) }.joined(separator: ",") + "]"
            let posted = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: batch))
            #expect(posted.status == .ok)
            #expect(posted.text.contains(#""added":4"#))

            let page1 = try await client.execute(uri: "/v1/requests?limit=2", method: .get)
            #expect(page1.text.contains(#""nextCursor":"b""#))
            let page2 = try await client.execute(uri: "/v1/requests?limit=2&cursor=b", method: .get)
            #expect(page2.text.contains(#""identifier":"c""#) && page2.text.contains(#""identifier":"d""#))
            #expect(!page2.text.contains(#""identifier":"a""#))
            let offset = try await client.execute(uri: "/v1/requests?limit=10&offset=3", method: .get)
            #expect(offset.text.contains(#""identifier":"d""#) && !offset.text.contains(#""identifier":"c""#))

            #expect(try await client.execute(uri: "/v1/requests/a", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/v1/requests/a", method: .delete).status == .notFound)
            let some = try await client.execute(uri: "/v1/requests?identifier=b&identifier=zz", method: .delete)
            #expect(some.text == #"{"removed":["b"]}"#)
            let all = try await client.execute(uri: "/v1/requests", method: .delete)
            #expect(all.text == #"{"removed":["c","d"]}"#)
            #expect(try await client.execute(uri: "/v1/requests", method: .get).text == #"{"requests":[]}"#)
        }
    }

    @Test func firedOneShotRequestMovesToDelivered() async throws {
        try await TestServer().run { client in
            _ = try await client.execute(uri: "/v1/requests/once", method: .put, body: ByteBuffer(string: requestJSON(repeats: false)))
            let fixes = [fixLine("d", 0, inside: false), fixLine("d", 10, inside: true)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixes))
            #expect(try await client.execute(uri: "/v1/requests/once", method: .get).status == .notFound)
            let delivered = try await client.execute(uri: "/v1/requests/delivered", method: .get)
            #expect(delivered.text.contains(#""identifier":"once""#))
            #expect(delivered.text.contains(#""device":"d""#))
        }
    }
}
