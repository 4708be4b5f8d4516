import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import TestSupport
import Testing

/// Issue 43, case 7, through the service: `--device-retention` forgets a silent device on wall time;
/// `--device-retention-exits` decides whether its geofences end silently or with an exit.
@Suite struct DeviceRetentionServeTests {
    static let depot = """
        {"content": {"title": "{device} {event}"},
         "trigger": {"type": "location", "repeats": true, "notifyOnExit": true,
                     "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
        """

    @Test(arguments: [false, true])
    func aSilentDeviceIsForgottenWithOrWithoutAnExit(exits: Bool) async throws {
        let server = try TestServer()
        var configuration = server.configuration()
        configuration.deviceRetention = 4
        configuration.deviceRetentionExits = exits
        try await server.run(configuration: configuration) { client in
            _ = try await client.execute(uri: "/v1/requests/depot", method: .put, body: ByteBuffer(string: Self.depot))
            // Fixes buffered a while ago: the device is silent past the retention from the first sweep on.
            let t = Int(Date().timeIntervalSince1970) - 100
            let fixes = [ClockTests.fix("truck", t, inside: false), ClockTests.fix("truck", t + 1, inside: true)].joined(separator: "\n")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: fixes))
            #expect(r.text.contains(#""rejected":0"#), "\(r.text)")
            let gone = try await eventually {
                try await client.execute(uri: "/v1/devices/truck", method: .get).status == .notFound
            }
            #expect(gone)
            // A marker after it: whatever forgetting fired is in the sink before the marker's entry.
            let now = Int(Date().timeIntervalSince1970)
            let marker = [ClockTests.fix("marker", now, inside: false), ClockTests.fix("marker", now + 1, inside: true)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: marker))
            let lines = try await server.sinkLines(atLeast: exits ? 3 : 2)
            let ids = lines.flatMap { WebhookScheduler.notifications(Array($0.utf8)).map(\.deliveryId) }
            let expected = ["depot/truck/1-\(t + 1)"] + (exits ? ["depot/truck/1-\(t + 1 + 4)"] : []) + ["depot/marker/1-\(now + 1)"]
            #expect(ids == expected)
            if exits { #expect(lines.count == 3 && lines[1].contains(#""event":"exit""#)) }
        }
    }
}
