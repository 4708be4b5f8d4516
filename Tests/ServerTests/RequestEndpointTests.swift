import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `/v1/requests`: add, replace, batch, list with paging and filters, fetch, remove one, several, all; delivered.
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

    @Test func listFiltersByRegionAndDevice() async throws {
        @Sendable func request(_ id: String, region: String, devices: String?) -> String {
            let scope = devices.map { #", "devices": \#($0)"# } ?? ""
            return """
                {"identifier": "\(id)", "content": {"title": "t"},
                 "trigger": {"type": "location"\(scope),
                             "region": {"type": "circle", "id": "\(region)", "center": {"latitude": 52.52, "longitude": 13.41}, "radius": 100}}}
                """
        }
        try await TestServer().run { (client: any TestClientProtocol) async throws in
            let batch = "[" + [request("all", region: "depot", devices: nil), request("star", region: "yard", devices: #""*""#),
                               request("t12", region: "depot", devices: #"["truck-12", "truck-13"]"#),
                               request("t99", region: "yard", devices: #"["truck-99"]"#)].joined(separator: ",") + "]"
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: batch)).status == .ok)
            func ids(_ query: String) async throws -> [String] {
                let text = try await client.execute(uri: "/v1/requests?\(query)", method: .get).text
                let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                return (json?["requests"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
            }
            #expect(try await ids("region=depot") == ["all", "t12"])
            let truck12 = try await ids("device=truck-12"), truck99 = try await ids("device=truck-99&region=yard")
            #expect(truck12 == ["all", "star", "t12"])
            #expect(truck99 == ["star", "t99"])
            #expect(try await ids("device=nobody") == ["all", "star"])
            #expect(try await ids("region=nowhere") == [])
            #expect(try await ids("device=truck-12&limit=2").count == 2)
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
