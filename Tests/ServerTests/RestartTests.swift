import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// A restart on the same file restores requests and device state and fires nothing twice.
@Suite struct RestartTests {
    @Test func restartRestoresRequestsAndDeviceStateWithoutRefiring() async throws {
        let server = try TestServer()
        let firstHalf = [fixLine("d", 0, inside: false), fixLine("d", 10, inside: true)].joined(separator: "\n")
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: firstHalf))
        }
        #expect(try await server.sinkLines(atLeast: 1).count == 1)

        try await server.run { client in
            #expect(try await client.execute(uri: "/v1/requests/alex", method: .get).status == .ok)
            let device = try await client.execute(uri: "/v1/devices/d", method: .get)
            #expect(device.text.contains(#""phase":"inside""#))
            // The same fixes again: already processed, so dropped, and nothing fires; a resend is acknowledged (200)
            // with each record's reason, so a client whose first answer was lost stops sending it.
            let again = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: firstHalf))
            #expect(again.status == .ok)
            #expect(again.text.contains(#""accepted":0,"rejected":2"#) && again.text.contains("older than the newest fix"), "\(again.text)")
            // Still inside: a further inside fix is no entry; leaving is an exit, its deliveryId from its own time.
            let more = [fixLine("d", 20, inside: true), fixLine("d", 30, inside: false)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: more))
        }
        let lines = try await server.sinkLines(atLeast: 2)
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""deliveryId":"alex/d/1-1760000010""#) && lines[0].contains(#""event":"entry""#))
        #expect(lines[1].contains(#""deliveryId":"alex/d/1-1760000030""#) && lines[1].contains(#""event":"exit""#))
    }

    /// Event time: two other devices' fixes move the watermark past a pending dwell, which completes. That device's new
    /// state is stored with the batch, so after a restart the dwell does not complete (and fire) a second time.
    @Test func dwellCompletedByAnotherDevicesFixIsStored() async throws {
        let server = try TestServer()
        let request = """
            {"content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": true, "dwell": 30, "initialTrigger": true,
                         "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
            """
        try await server.run(clock: .event) { client in
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: request))
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixLine("b", 0, inside: true)))
            let others = [fixLine("a", 100, inside: false), fixLine("c", 100, inside: false)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: others))
        }
        #expect(try await server.sinkLines(atLeast: 1).count == 1)
        try await server.run(clock: .event) { client in
            let b = try await client.execute(uri: "/v1/devices/b", method: .get)
            #expect(b.text.contains(#""phase":"inside""#))
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixLine("a", 200, inside: false)))
        }
        // The server has stopped (an orderly stop delivers the outbox): the file is complete, and a second line
        // would be the dwell fired again.
        let lines = try await server.sinkLines(atLeast: 1)
        #expect(lines.count == 1)
    }

    /// Event time: two other observers' sightings move the watermark past a beacon exit timeout, and the first observer
    /// leaves silently (no exit notification). That change is stored with the batch although nothing fired for it.
    @Test func silentBeaconExitCausedByAnotherDevicesSightingIsStored() async throws {
        let server = try TestServer()
        let request = """
            {"content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": true, "notifyOnExit": false, "exitTimeout": 30,
                         "region": {"type": "beacon", "id": "dock", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}}}
            """
        @Sendable func sighting(_ device: String, _ second: Int) -> String {
            #"{"device": "\#(device)", "timestamp": \#(1_760_000_000 + second), "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "rssi": -60, "txPower": -59}"#
        }
        try await server.run(clock: .event) { client in
            _ = try await client.execute(uri: "/v1/requests/dock", method: .put, body: ByteBuffer(string: request))
            _ = try await client.execute(uri: "/v1/sightings", method: .post, body: ByteBuffer(string: sighting("gw", 0)))
            let inside = try await client.execute(uri: "/v1/devices/gw", method: .get)
            #expect(inside.text.contains(#""phase":"inside""#))
            let others = [sighting("other", 100), sighting("another", 100)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/sightings", method: .post, body: ByteBuffer(string: others))
        }
        try await server.run(clock: .event) { client in
            let gw = try await client.execute(uri: "/v1/devices/gw", method: .get)
            #expect(gw.text.contains(#""memberships":[]"#))
        }
    }
}
