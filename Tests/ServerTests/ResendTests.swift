import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Issue 45's first case: apps resend a message until they get a 2xx, so a message the server took once and whose
/// answer was lost must be acknowledged when it comes again (counted as a duplicate, changing nothing). Only what
/// sending again can never fix (nothing readable in the body) is a 4xx.
@Suite struct ResendTests {
    static func duplicates(_ metrics: String) -> Int {
        metrics.split(separator: "\n").filter { $0.hasPrefix("geotrigger_rejections_total") && $0.contains(#"reason="duplicate""#) }
            .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0) { $0 + Int($1) }
    }

    @Test func anOwnTracksMessageSentAgainAfterALostAnswerIsAcknowledged() async throws {
        try await TestServer().run(token: AppEndpointTests.token) { (client: any TestClientProtocol) async throws in
            let body = AppEndpointTests.location(52.53, 1_760_000_000)
            for attempt in 1...3 {
                let r = try await client.execute(uri: "/v1/owntracks", method: .post, headers: AppEndpointTests.basic, body: ByteBuffer(string: body))
                #expect(r.status == .ok && r.text == "[]", "attempt \(attempt): \(r.status) \(r.text)")
            }
            // An offline buffer flushed after a newer position: acknowledged, refused by the engine as late.
            let newer = AppEndpointTests.location(52.5219, 1_760_000_600)
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: AppEndpointTests.basic, body: ByteBuffer(string: newer)).status == .ok)
            let older = AppEndpointTests.location(52.52, 1_760_000_300)
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: AppEndpointTests.basic, body: ByteBuffer(string: older)).status == .ok)
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: AppEndpointTests.basic).text
            // The counter is the process's (other suites' servers add to it): at least this test's two repeats.
            #expect(Self.duplicates(metrics) >= 2, "\(metrics)")
        }
    }

    @Test func aTraccarPositionSentAgainOrOlderIsAcknowledged() async throws {
        try await TestServer().run(token: AppEndpointTests.token) { (client: any TestClientProtocol) async throws in
            let query = "/?id=truck&lat=52.53&lon=13.4132&timestamp=1760000000"
            for attempt in 1...2 {
                let r = try await client.execute(uri: query, method: .post, headers: AppEndpointTests.basic)
                #expect(r.status == .ok, "attempt \(attempt): \(r.status) \(r.text)")
            }
            #expect(try await client.execute(uri: "/?id=truck&lat=52.53&lon=13.4132&timestamp=1760000100", method: .post, headers: AppEndpointTests.basic).status == .ok)
            #expect(try await client.execute(uri: "/?id=truck&lat=52.53&lon=13.4132&timestamp=1760000050", method: .post, headers: AppEndpointTests.basic).status == .ok)
            // What can never be read is still refused.
            let bad = try await client.execute(uri: "/?id=truck&lat=95&lon=13.4132&timestamp=1760000200", method: .post, headers: AppEndpointTests.basic)
            #expect(bad.status == .badRequest, "\(bad.text)")
        }
    }

    @Test func aFixesBodySentAgainIsAcknowledgedWithItsDuplicatesListed() async throws {
        try await TestServer().run { client in
            let body = [fixLine("d", 0, inside: false), fixLine("d", 10, inside: true)].joined(separator: "\n")
            let first = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: body))
            #expect(first.status == .ok && first.text.hasPrefix(#"{"accepted":2,"rejected":0"#), "\(first.text)")
            let again = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: body))
            #expect(again.status == .ok, "\(again.text)")
            #expect(again.text.contains(#""accepted":0"#) && again.text.contains(#""rejected":2"#) && again.text.contains(#""duplicates":1"#), "\(again.text)")
            // Nothing readable: 422, as before.
            let unreadable = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: "{}\n"))
            #expect(unreadable.status == .unprocessableContent, "\(unreadable.text)")
        }
    }
}

/// Issue 45's third case: OwnTracks names a device `jane/phone`; its routes work with the slash raw or encoded.
@Suite struct DeviceIdPathTests {
    @Test func aDeviceIdWithASlashWorksRawAndPercentEncoded() async throws {
        try await TestServer().run { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: requestJSON("alex"))).status == .ok)
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixLine("jane/phone", 0, inside: true))).status == .ok)
            for path in ["/v1/devices/jane/phone", "/v1/devices/jane%2Fphone"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .ok && r.text.contains(#""device":"jane/phone""#), "\(path): \(r.status) \(r.text)")
            }
            for path in ["/v1/devices/jane/phone/regions", "/v1/devices/jane%2Fphone/regions"] {
                let r = try await client.execute(uri: path, method: .get)
                #expect(r.status == .ok && r.text.contains(#""device":"jane/phone""#) && r.text.contains("alex"), "\(path): \(r.status) \(r.text)")
            }
            #expect(try await client.execute(uri: "/v1/devices/jane/nobody", method: .get).status == .notFound)
        }
    }
}
