import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// Proximity requests through `serve` (docs/semantics.md "Proximity"): groups through the API, pairs decided once
/// the event-time watermark has passed them, kept across a restart.
@Suite struct ProximityServeTests {
    static let request = #"""
        {"content": {"title": "{device} {event} {nearby.device} {nearby.distance} m"},
         "trigger": {"repeats": true,
                     "region": {"type": "proximity", "id": "near-crew", "radius": 100, "targets": {"group": "crew"}, "maxAge": 600}}}
        """#

    /// A fix `metres` east of (52.5, 13.4), at 1760000000 + `second`.
    @Sendable static func fix(_ device: String, _ second: Int, east metres: Double) -> String {
        #"{"device": "\#(device)", "timestamp": \#(1_760_000_000 + second), "latitude": 52.5, "longitude": \#(13.4 + metres / 67_800)}"#
    }

    @Test func groupsAndPairsThroughTheAPIAndARestart() async throws {
        let server = try TestServer()
        try await server.run(clock: .event) { client in
            let created = try await client.execute(uri: "/v1/groups/crew", method: .put, body: ByteBuffer(string: #"{"devices": ["phone"]}"#))
            #expect(created.status == .created, "\(created.text)")
            let put = try await client.execute(uri: "/v1/requests/near", method: .put, body: ByteBuffer(string: Self.request))
            #expect(put.status == .created, "\(put.text)")
            let fixes = [Self.fix("phone", 0, east: 0), Self.fix("van", 1, east: 800), Self.fix("van", 10, east: 50)]
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixes.joined(separator: "\n")))
            // Not decided yet: the watermark (the second-newest device time) is not 60 s past 10.
            let before = try await client.execute(uri: "/v1/devices/van/proximity", method: .get)
            #expect(before.status == .ok && before.text.contains(#""pairs":[]"#), "\(before.text)")
            // Two other devices move the watermark to 200: everything up to 140 is decided.
            let later = [Self.fix("bus", 200, east: 5_000), Self.fix("tram", 200, east: 6_000)]
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: later.joined(separator: "\n")))
            let after = try await client.execute(uri: "/v1/devices/van/proximity", method: .get)
            #expect(after.text.contains(#""other":"phone""#) && after.text.contains(#""phase":"inside""#), "\(after.text)")
            let groups = try await client.execute(uri: "/v1/groups", method: .get)
            #expect(groups.text == #"{"groups":{"crew":["phone"]}}"#, "\(groups.text)")
        }
        let first = try await server.sinkLines(atLeast: 1)
        #expect(first.count == 1)
        #expect(first[0].contains(#""event":"entry""#) && first[0].contains(#""nearby":{"device":"phone""#), "\(first[0])")
        #expect(first[0].contains(#""title":"van entry phone 50 m""#), "\(first[0])")

        try await server.run(clock: .event) { client in
            let groups = try await client.execute(uri: "/v1/groups/crew", method: .get)
            #expect(groups.text == #"{"name":"crew","devices":["phone"]}"#, "\(groups.text)")
            let pairs = try await client.execute(uri: "/v1/devices/phone/proximity", method: .get)
            #expect(pairs.text.contains(#""subject":"van","target":"phone""#) && pairs.text.contains(#""phase":"inside""#), "\(pairs.text)")
            // The van leaves; the watermark passes it: one exit, and the entry is not fired again.
            let fixes = [Self.fix("van", 300, east: 900), Self.fix("bus", 500, east: 5_000), Self.fix("tram", 500, east: 6_000)]
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixes.joined(separator: "\n")))
        }
        let lines = try await server.sinkLines(atLeast: 2)
        #expect(lines.count == 2)
        #expect(lines.last?.contains(#""event":"exit""#) == true)
    }

    @Test func groupChangesThatCanNeverWorkAreRefused() async throws {
        let server = try TestServer()
        try await server.run { client in
            let name = try await client.execute(uri: "/v1/groups/a%20b", method: .put, body: ByteBuffer(string: #"{"devices": []}"#))
            #expect(name.status == .unprocessableContent, "\(name.text)")
            let shape = try await client.execute(uri: "/v1/groups/g", method: .put, body: ByteBuffer(string: #"{"devices": "x"}"#))
            #expect(shape.status == .unprocessableContent && shape.text.contains("expected an array of device ids"), "\(shape.text)")
            let extra = try await client.execute(uri: "/v1/groups/g", method: .put, body: ByteBuffer(string: #"{"devices": [], "color": 1}"#))
            #expect(extra.status == .unprocessableContent && extra.text.contains("color"), "\(extra.text)")
            let unknown = try await client.execute(uri: "/v1/groups/none", method: .delete)
            #expect(unknown.status == .notFound)
            let empty = try await client.execute(uri: "/v1/groups/g", method: .put, body: ByteBuffer(string: #"{"devices": []}"#))
            #expect(empty.status == .created)
            let again = try await client.execute(uri: "/v1/groups/g", method: .put, body: ByteBuffer(string: #"{"devices": ["a", "a"]}"#))
            #expect(again.status == .ok && again.text == #"{"name":"g","devices":["a"]}"#, "\(again.text)")
            #expect(try await client.execute(uri: "/v1/groups/g", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/v1/groups/g", method: .get).status == .notFound)
        }
    }
}
