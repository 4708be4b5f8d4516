import Foundation
import HummingbirdTesting
import JSON
import MQTT
import NIOCore
import Testing
import TestSupport

/// `geotrigger serve --input mqtt://HOST:PORT/owntracks/#` against a real mosquitto with persistence: OwnTracks
/// messages published at QoS 1 reach the journal under the topic's device, including those in flight across a
/// broker restart (the service's persistent session keeps them queued at the broker).
@Suite(.serialized, .enabled(if: Broker.executable != nil, Broker.skipReason))
struct MQTTInputTests {
    static func location(_ tst: Int, _ lat: Double) -> [UInt8] {
        Array(#"{"_type":"location","tid":"jp","lat":\#(lat),"lon":13.4132,"tst":\#(tst),"acc":10}"#.utf8)
    }

    @Test func ownTracksMessagesSurviveABrokerRestart() async throws {
        let work = try TestFolders.make("mqtt-input")
        defer { try? FileManager.default.removeItem(at: work) }
        let broker = try Broker(settings: """
            allow_anonymous true
            persistence true
            persistence_location \(work.path)/
            autosave_interval 1
            """)
        let database = work.appendingPathComponent("g.sqlite").path
        let server = try ServeProcess(arguments: ["--database", database, "--listen", "127.0.0.1:0", "--clock", "event",
                                                  "--sink", "ndjson:\(work.appendingPathComponent("out.ndjson").path)",
                                                  "--input", "mqtt://127.0.0.1:\(broker.port)/owntracks/#"],
                                      directory: work, log: work.appendingPathComponent("serve.log"))
        let serve = server.process
        func serveLog() -> String { server.log }
        try await server.waitUntilListening()
        let port = server.port
        _ = await eventually(every: .milliseconds(50)) { serveLog().contains("MQTT input subscribed") }
        #expect(port > 0 && serveLog().contains("MQTT input subscribed"), "\(serveLog().suffix(1500))")

        let publisher = try MQTTClient(broker.options { $0.clientID = "phone-publisher"; $0.cleanSession = false })
        try await publisher.waitUntilConnected(timeout: .seconds(10))
        let base = 1_760_000_000
        // The service stops reading (SIGSTOP): what is published now waits at the broker, in its session or in
        // flight to the service, when the broker restarts.
        kill(serve.processIdentifier, SIGSTOP)
        for k in 0..<100 { try await publisher.publish(topic: "owntracks/jane/phone", payload: Self.location(base + k, 52.50 + Double(k) * 0.0001)) }
        broker.stop()
        try broker.start()
        kill(serve.processIdentifier, SIGCONT)
        for k in 100..<200 { try await publisher.publish(topic: "owntracks/jane/phone", payload: Self.location(base + k, 52.50 + Double(k) * 0.0001)) }
        // A message GeoTrigger cannot read is logged with its topic and does not stop the input.
        try await publisher.publish(topic: "owntracks/jane/phone", payload: Array(#"{"_type":"location","lat":95}"#.utf8))
        await publisher.close()

        var last: String?
        _ = await eventually(every: .milliseconds(50)) {
            let client = TestClient(host: "127.0.0.1", port: port)
            client.connect()
            let r = try? await client.execute(.init("/v1/devices/jane%2Fphone", method: .get))
            try? await client.shutdown()
            if let body = r?.body, let o = try? JSONParser.parse(Array(body.readableBytesView)) { last = o["lastFix"]?.stringValue }
            return last == "2025-10-09T08:56:39Z"
        }
        #expect(last == "2025-10-09T08:56:39Z", "newest fix \(last ?? "none"); \(serveLog().suffix(1500))")
        #expect(serveLog().contains("topic=owntracks/jane/phone"), "the unreadable message is logged with its topic")
        serve.terminate()
        await serve.exited()

        // Every message published, in the journal once or more (a redelivery after the restart is a duplicate the
        // engine drops), under the topic's device.
        let text = try BuiltBinary.output(["journal", "export", database + ".journal"]).stdout
        let fixes = text.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        #expect(Set(fixes.compactMap { $0["device"]?.stringValue }) == ["jane/phone"])
        let times = Set(fixes.compactMap { $0["timestamp"]?.stringValue })
        #expect(times.count == 200, "\(times.count) distinct fixes of 200 journaled (\(fixes.count) with redeliveries)")
    }
}
