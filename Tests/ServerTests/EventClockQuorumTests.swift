import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// Issue 43, case 5, through the service: under `--clock event` one client cannot move everyone's clock
/// (docs/semantics.md "Time").
@Suite struct EventClockQuorumTests {
    static let base = 1_760_000_000

    static func fix(_ device: String, _ second: Int, latitude: Double, longitude: Double = 13.4132) -> String {
        #"{"device": "\#(device)", "timestamp": \#(base + second), "latitude": \#(latitude), "longitude": \#(longitude)}"#
    }

    /// Every notification fired so far, once the outbox holds none and the feeder waits for none: the sink then has
    /// all of them. At least `count` must have arrived first (the feeder may not have seen them yet).
    static func allDelivered(_ server: TestServer, _ client: some TestClientProtocol, atLeast count: Int) async throws -> [String] {
        if count > 0 { _ = try await server.sinkLines(atLeast: count) }
        let drained = try await eventually {
            let outbox = try await client.execute(uri: "/v1/outbox", method: .get).text
            return outbox.contains(#""entries":0,"#) && outbox.contains(#""awaitingDurability":0,"#)
        }
        #expect(drained)
        return try await server.sinkLines(atLeast: 0)
    }

    /// The issue's attack: a fix dated 300 days ahead fired every pending dwell, including that of a device that had
    /// left, and made the others' genuine next fixes late. Now it is `future` (the default bound is 10 minutes),
    /// and the others go on.
    @Test func aFixDaysAheadIsFutureAndFiresNoOneElsesDwell() async throws {
        let server = try TestServer()
        try await server.run(configuration: server.configuration(clock: .event)) { client in
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: ClockTests.dwellRequest))
            let marker = """
                {"content": {"title": "{device} {event}"}, "trigger": {"type": "location", "repeats": true,
                 "region": {"type": "circle", "id": "elsewhere", "center": {"latitude": 52.6, "longitude": 13.5}, "radius": 100}}}
                """
            _ = try await client.execute(uri: "/v1/requests/marker", method: .put, body: ByteBuffer(string: marker))
            // a enters (its 30 s dwell runs), b is elsewhere.
            let start = [Self.fix("a", -10, latitude: 52.53), Self.fix("a", 0, latitude: 52.5219), Self.fix("b", 0, latitude: 52.53)]
                .joined(separator: "\n")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: start))
            #expect(r.text.contains(#""rejected":0"#), "\(r.text)")
            let attack = try await client.execute(uri: "/v1/fixes", method: .post,
                                                  body: ByteBuffer(string: Self.fix("attacker", 300 * 86_400, latitude: 52.53)))
            #expect(attack.text.contains("future"), "\(attack.text)")
            // Also when the device is known already: it may lead by the bound, not by days.
            let again = try await client.execute(uri: "/v1/fixes", method: .post,
                                                 body: ByteBuffer(string: Self.fix("b", 300 * 86_400, latitude: 52.53)))
            #expect(again.text.contains("future"), "\(again.text)")
            // a leaves before its 30 s dwell: not late, and nothing fires for it.
            let left = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.fix("a", 20, latitude: 52.53)))
            #expect(left.text.contains(#""rejected":0"#), "\(left.text)")
            let enters = [Self.fix("m", 19, latitude: 52.53, longitude: 13.5), Self.fix("m", 21, latitude: 52.6, longitude: 13.5)]
            let m = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: enters.joined(separator: "\n")))
            #expect(m.text.contains(#""rejected":0"#), "\(m.text)")
            let lines = try await Self.allDelivered(server, client, atLeast: 1)
            #expect(lines.count == 1 && lines.allSatisfy { $0.contains(#""deliveryId":"marker/m/"#) }, "\(lines)")
        }
    }

    /// The bundled demo, as the issue ran it: `convert --device-per-track` (truck-12's track, then truck-13's)
    /// posted in one request gives the notifications `replay` gives (Data/demo-expected.ndjson), not an 11th
    /// dwell for truck-13 fired by a watermark truck-12 moved alone.
    @Test func demoConvertedByTrackAndPostedAtOnceGivesReplaysNotifications() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = root.appendingPathComponent("Data")
        let converted = try BuiltBinary.output(["convert", data.appendingPathComponent("demo-drive.gpx").path, "--device-per-track"])
        #expect(converted.status == 0)
        let requests = try String(contentsOf: data.appendingPathComponent("demo-requests.json"), encoding: .utf8)
        let expected = try String(contentsOf: data.appendingPathComponent("demo-expected.ndjson"), encoding: .utf8)
            .split(separator: "\n").flatMap { WebhookScheduler.notifications(Array($0.utf8)).map(\.deliveryId) }.sorted()
        #expect(expected.count == 10)
        let server = try TestServer()
        try await server.run(configuration: server.configuration(clock: .event)) { client in
            let added = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: requests))
            #expect(added.status == .ok || added.status == .created, "\(added.text)")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: converted.stdout))
            #expect(r.text.contains(#""rejected":0"#), "\(r.text)")
            let lines = try await Self.allDelivered(server, client, atLeast: expected.count)
            let served = lines.flatMap { WebhookScheduler.notifications(Array($0.utf8)).map(\.deliveryId) }.sorted()
            #expect(served == expected)
        }
    }
}
