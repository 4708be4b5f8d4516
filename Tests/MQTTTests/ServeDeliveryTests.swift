import Delivery
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MQTT
import Server
import Testing
import TestSupport

/// `geotrigger serve --sink mqtt://…` end to end: a real server (HTTP on loopback, a real SQLite file) fires
/// notifications into its outbox, and its MQTT sink publishes them to a real mosquitto that the test starts, stalls,
/// stops and brings back. An NDJSON sink beside it is the reference: every notification fired, in firing order.
@Suite(.serialized, .enabled(if: Broker.executable != nil, Broker.skipReason))
struct ServeDeliveryTests {
    static let devices = (0..<6).map { "dev-\($0)" }
    static let template = "gt/{device}/{event}"

    /// A temporary folder with the database and the reference sink; removed when released.
    final class Workspace: Sendable {
        let directory: URL
        var database: String { directory.appendingPathComponent("g.sqlite").path }
        var reference: String { directory.appendingPathComponent("reference.ndjson").path }

        init() throws {
            directory = try TestFolders.make("serve-mqtt")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// The reference sink's notifications in firing order: (deliveryId, device, event, the JSON line).
        var fired: [(deliveryId: String, device: String, event: String, json: String)] {
            ((try? String(contentsOfFile: reference, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
                guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let id = o["deliveryId"] as? String, let device = o["device"] as? String,
                    let event = (o["trigger"] as? [String: Any])?["event"] as? String
                else { return nil }
                return (id, device, event, String(line))
            }
        }
    }

    func configuration(_ w: Workspace, broker: Broker, query: String = "") throws -> ServerConfiguration {
        var c = ServerConfiguration(databasePath: w.database, host: "127.0.0.1", port: 0, clock: .event)
        let spec = try MQTTSinkSpec(parsing: "mqtt://127.0.0.1:\(broker.port)/\(Self.template)?timeout=1\(query)")
        c.sinks = [.ndjson(path: w.reference), .mqtt(spec)]
        c.delivery.retry = RetryPolicy(initial: .milliseconds(20), maximum: .milliseconds(300))
        return c
    }

    func run(_ configuration: ServerConfiguration, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "serve-mqtt-tests")
        logger.logLevel = .critical
        let server = try GeoTriggerServer(configuration: configuration, logger: logger)
        try await server.closingStorage { try await server.makeApplication().test(.live) { try await body(PatientClient(inner: $0)) } }
    }

    static let request = """
        {"identifier": "alex", "content": {"title": "{device} {event}"},
         "trigger": {"type": "location", "repeats": true,
                     "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
        """

    /// Round `b`: every device moves in or out of the circle, so every fix after a device's first fires.
    static func batch(_ b: Int) -> String {
        devices.enumerated().map { k, d in
            let inside = (b + k) % 2 == 0
            return #"{"device": "\#(d)", "timestamp": \#(1_760_000_000 + b * 10 + k), "latitude": \#(inside ? 52.5219 : 52.53), "longitude": 13.4132}"#
        }.joined(separator: "\n")
    }

    func post(_ client: any TestClientProtocol, rounds: Range<Int>) async throws {
        for b in rounds {
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.batch(b)))
            #expect(r.status == .ok, "round \(b): \(String(buffer: r.body))")
        }
    }

    /// `/v1/outbox`'s view of the MQTT sink: (depth, dead letters).
    func mqttSink(_ client: any TestClientProtocol) async throws -> (depth: Int, deadLetters: Int)? {
        let r = try await client.execute(uri: "/v1/outbox", method: .get)
        guard let json = try JSONSerialization.jsonObject(with: Data(String(buffer: r.body).utf8)) as? [String: Any],
            let sinks = json["sinks"] as? [[String: Any]],
            let sink = sinks.first(where: { ($0["name"] as? String)?.hasPrefix("mqtt://") == true })
        else { return nil }
        return (sink["depth"] as? Int ?? -1, sink["deadLetters"] as? Int ?? -1)
    }

    /// The depth of every sink, by name.
    func depths(_ client: any TestClientProtocol) async throws -> [String: Int] {
        let r = try await client.execute(uri: "/v1/outbox", method: .get)
        guard let json = try JSONSerialization.jsonObject(with: Data(String(buffer: r.body).utf8)) as? [String: Any],
            let sinks = json["sinks"] as? [[String: Any]]
        else { return [:] }
        return Dictionary(sinks.map { ($0["name"] as? String ?? "", $0["depth"] as? Int ?? -1) }, uniquingKeysWith: max)
    }

    /// Waits until every sink settled the outbox: the MQTT sink, and the NDJSON reference that `fired` reads (it
    /// delivers at its own pace; counting exits from it while it still held some once gave 54 against 57 dead letters).
    func waitUntilSettled(_ client: any TestClientProtocol) async throws {
        let settled = try await eventually(every: .milliseconds(50)) {
            let d = try await depths(client)
            return !d.isEmpty && d.values.allSatisfy { $0 == 0 }
        }
        if !settled { Issue.record("the MQTT sink never settled the outbox: \(String(describing: try await mqttSink(client)))") }
    }

    /// What the subscriber received, deduplicated by deliveryId (first arrival), checked against the reference:
    /// every notification exactly as fired, on its device's topic, in firing order per device. Returns the repeats.
    func check(_ received: [MQTTMessage], against fired: [(deliveryId: String, device: String, event: String, json: String)],
               sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var seen = Set<String>()
        var firsts: [String: [String]] = [:]
        var repeats = 0
        let byId = Dictionary(uniqueKeysWithValues: fired.map { ($0.deliveryId, $0) })
        for m in received {
            let json = String(decoding: m.payload, as: UTF8.self)
            guard let o = try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any],
                let id = o["deliveryId"] as? String, let n = byId[id]
            else {
                Issue.record("unknown message on \(m.topic): \(json.prefix(120))", sourceLocation: sourceLocation)
                continue
            }
            #expect(m.topic == "gt/\(n.device)/\(n.event)", sourceLocation: sourceLocation)
            #expect(json == n.json, "payload of \(id) differs from the fired notification", sourceLocation: sourceLocation)
            if seen.insert(id).inserted { firsts[n.device, default: []].append(id) } else { repeats += 1 }
        }
        for device in Self.devices {
            let expected = fired.filter { $0.device == device }.map(\.deliveryId)
            #expect(firsts[device] ?? [] == expected, "\(device): missing or out of order", sourceLocation: sourceLocation)
        }
        return repeats
    }

    @Test func everyNotificationArrivesOnItsTopicInFiringOrderPerDevice() async throws {
        let w = try Workspace()
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("gt/#")
        try await run(try configuration(w, broker: broker)) { client in
            let put = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: Self.request))
            #expect(put.status == .created)
            try await post(client, rounds: 0..<40)
            try await waitUntilSettled(client)
        }
        let fired = w.fired
        #expect(fired.count == 39 * Self.devices.count)
        let repeats = check(await received.wait(count: fired.count), against: fired)
        #expect(repeats == 0, "no failure, so no repeat")
        await subscriber.close()
    }

    /// A broker that stops answering (SIGSTOP) and then goes away (SIGTERM) while fixes keep firing: publishes time
    /// out and are retried, the outbox holds the rest, and once the broker is back everything arrives, in order
    /// per device. The subscriber keeps a persistent session (the broker saves it on SIGTERM), so it misses nothing.
    @Test func aStalledThenStoppedBrokerLosesNothing() async throws {
        let w = try Workspace()
        let persistence = w.directory.appendingPathComponent("mosquitto-db").path + "/"
        try FileManager.default.createDirectory(atPath: persistence, withIntermediateDirectories: true)
        let broker = try Broker(settings: "allow_anonymous true\npersistence true\npersistence_location \(persistence)")
        let subscriber = try MQTTClient(broker.options { $0.clientID = "gt-subscriber"; $0.cleanSession = false })
        let received = Received(subscriber)
        try await subscriber.subscribe("gt/#")
        try await run(try configuration(w, broker: broker)) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: Self.request))
            try await post(client, rounds: 0..<10)
            broker.pause()
            try await post(client, rounds: 10..<20)
            try await Task.sleep(for: .milliseconds(1500))  // past the 1 s publish timeout: the sink retries
            broker.resume()
            try await Task.sleep(for: .milliseconds(300))
            broker.stop()
            try await post(client, rounds: 20..<30)
            #expect(try await mqttSink(client)?.depth ?? 0 > 0, "the outbox holds what the broker could not take")
            try broker.start()
            try await post(client, rounds: 30..<40)
            try await waitUntilSettled(client)
        }
        let fired = w.fired
        #expect(fired.count == 39 * Self.devices.count)
        let all = await received.wait(count: fired.count, timeout: .seconds(30))
        let repeats = check(all, against: fired)
        // Repeats only of batches whose acknowledgement was lost (stall or stop); at most a few batches' worth.
        #expect(repeats <= 20 * Self.devices.count, "\(repeats) repeats")
        await subscriber.close()
    }

    /// MQTT 5: the broker's ACL lets this client publish entries but not exits, and refuses each exit with a
    /// PUBACK reason code (0x87). Exactly the exits become dead letters, one by one; every entry arrives, in order
    /// per device, although each batch mixes both.
    @Test func messagesTheBrokerRefusesAreTheOnlyDeadLetters() async throws {
        let w = try Workspace()
        let acl = w.directory.appendingPathComponent("acl").path
        try "topic write gt/+/entry\ntopic read gt/#\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try Broker(settings: "allow_anonymous true\nacl_file \(acl)")
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("gt/#")
        try await run(try configuration(w, broker: broker, query: "&version=5")) { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: Self.request))
            try await post(client, rounds: 0..<20)
            try await waitUntilSettled(client)
            let exits = w.fired.filter { $0.event == "exit" }.count
            #expect(exits > 0)
            // A settled outbox can still be missing entries: the feeder moves acknowledged (journaled) notifications
            // into it on a task of its own, so the dead letters are awaited (this once failed in CI at depth 0).
            _ = try await eventually(every: .milliseconds(50)) { (try await mqttSink(client)?.deadLetters ?? -1) >= exits }
            let deadLetters = try await mqttSink(client)?.deadLetters ?? -1
            #expect(deadLetters == exits, "broker log:\n\(broker.log.suffix(2000))")
        }
        let entries = w.fired.filter { $0.event == "entry" }
        let all = await received.wait(count: entries.count)
        try await Task.sleep(for: .milliseconds(200))  // nothing else may arrive
        #expect(received.all.allSatisfy { $0.topic.hasSuffix("/entry") })
        #expect(check(all, against: entries) == 0)
        await subscriber.close()
    }
}
