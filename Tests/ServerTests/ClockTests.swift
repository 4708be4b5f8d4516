import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing

/// Live mode: the clock is wall time, and time is per device (docs/semantics.md "Time"). A device's own fixes settle
/// its dwell whenever they arrive; the clock fires the dwell of a device that went silent, an allowed lateness after.
@Suite struct ClockTests {
    static let dwellRequest = """
        {"content": {"title": "{device} {event}"},
         "trigger": {"type": "location", "repeats": true, "dwell": 30,
                     "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
        """

    static func fix(_ device: String, _ time: Int, inside: Bool) -> String {
        #"{"device": "\#(device)", "timestamp": \#(time), "latitude": \#(inside ? 52.5219 : 52.53), "longitude": 13.4132}"#
    }

    @Test func dwellOfASilentDeviceFiresOnWallTimeAfterTheAllowedLateness() async throws {
        let server = try TestServer()
        var configuration = server.configuration()
        configuration.allowedLateness = 1
        try await server.run(configuration: configuration) { client in
            let request = """
                {"content": {"title": "{device} {event}"},
                 "trigger": {"type": "location", "repeats": true, "dwell": 1, "initialTrigger": true,
                             "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
                """
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: request))
            let now = Int(Date().timeIntervalSince1970)
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.fix("w", now, inside: true)))
            #expect(r.text.hasPrefix(#"{"accepted":1"#))
            let entering = try await client.execute(uri: "/v1/devices/w", method: .get)
            // Still entering when read before the dwell (1 s) and the lateness (1 s) are past; a loaded machine may
            // read it later, when it may already be inside: no assertion on which side of that race the read lands.
            if Date().timeIntervalSince1970 < Double(now + 2) {
                #expect(entering.text.contains(#""phase":"entering""#), "\(entering.text)")
            }
            let lines = try await server.sinkLines(atLeast: 1)
            #expect(lines.count == 1)
            #expect(lines.first?.contains(#""deliveryId":"dwell/w/1-\#(now + 1)""#) == true)
            let inside = try await client.execute(uri: "/v1/devices/w", method: .get)
            #expect(inside.text.contains(#""phase":"inside""#))
        }
    }

    /// The issue's reproduction: four fixes inside a circle with a 30 s dwell, spread over 60 s and uploaded a
    /// minute later (a phone that was offline), together or one request per fix: the dwell entry fires, at its
    /// deadline, from the fixes themselves.
    @Test(arguments: [false, true])
    func bufferedUploadCompletesTheDwell(onePerRequest: Bool) async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: Self.dwellRequest))
            let start = Int(Date().timeIntervalSince1970) - 120
            let fixes = [Self.fix("p", start - 10, inside: false)] + (0..<4).map { Self.fix("p", start + $0 * 20, inside: true) }
            let bodies = onePerRequest ? fixes : [fixes.joined(separator: "\n")]
            for body in bodies {
                let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: body))
                #expect(r.status == .ok)
                #expect(r.text.contains(#""rejected":0"#), "\(r.text)")
            }
            let lines = try await server.sinkLines(atLeast: 1)
            #expect(lines.count == 1)
            #expect(lines.first?.contains(#""event":"entry""#) == true)
            #expect(lines.first?.contains(#""deliveryId":"dwell/p/1-\#(start + 30)""#) == true)
        }
    }

    /// Uploaded one request per fix, the device left before its deadline: no entry, and no fix is refused as late
    /// although the wall clock ticked past the deadline between the requests.
    @Test func bufferedUploadThatLeftEarlyFiresNothing() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: Self.dwellRequest))
            let start = Int(Date().timeIntervalSince1970) - 300
            for (t, inside) in [(-10, false), (0, true), (20, true), (25, false), (200, false)] {
                let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.fix("q", start + t, inside: inside)))
                #expect(r.text.hasPrefix(#"{"accepted":1"#), "\(r.text)")
                try await Task.sleep(for: .milliseconds(1100))  // the clock ticks (every second) between uploads
            }
            let device = try await client.execute(uri: "/v1/devices/q", method: .get)
            #expect(device.text.contains(#""memberships":[]"#))
        }
        #expect(try await server.sinkLines(atLeast: 1, within: 5).isEmpty)
    }

    /// A fix dated 9999 is refused as `future`: it wedges neither its device nor the clock.
    @Test func farFutureFixIsRejectedAndTheDeviceGoesOn() async throws {
        let server = try TestServer()
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/dwell", method: .put, body: ByteBuffer(string: Self.dwellRequest))
            let bogus = #"{"device": "f", "timestamp": "9999-12-31T23:59:59Z", "latitude": 52.5219, "longitude": 13.4132}"#
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: bogus))
            #expect(r.text.contains("future"), "\(r.text)")
            let now = Int(Date().timeIntervalSince1970)
            let ok = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.fix("f", now, inside: false)))
            #expect(ok.text.hasPrefix(#"{"accepted":1"#), "\(ok.text)")
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.text.contains(#"geotrigger_rejections_total{reason="future"}"#))
        }
    }
}
