import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Live mode: the clock is wall time, so a dwell completes when it is due, with no further input.
@Suite struct ClockTests {
    @Test func dwellFiresOnWallTimeWithoutFurtherInput() async throws {
        let server = try TestServer()
        try await server.run { client in
            let request = """
                {"content": {"title": "{device} {event}"},
                 "trigger": {"type": "location", "repeats": true, "dwell": 1, "initialTrigger": true,
                             "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
                """
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: request))
            let now = Int(Date().timeIntervalSince1970)
            let fix = #"{"device": "w", "timestamp": \#(now), "latitude": 52.5219, "longitude": 13.4132}"#
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fix))
            #expect(r.text.hasPrefix(#"{"accepted":1"#))
            let entering = try await client.execute(uri: "/v1/devices/w", method: .get)
            #expect(entering.text.contains(#""phase":"entering""#))
            let lines = try await server.sinkLines(atLeast: 1)
            #expect(lines.count == 1)
            #expect(lines.first?.contains(#""deliveryId":"dwell/w/1-1""#) == true)
            let inside = try await client.execute(uri: "/v1/devices/w", method: .get)
            #expect(inside.text.contains(#""phase":"inside""#))
        }
    }
}
