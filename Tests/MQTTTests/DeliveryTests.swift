import Foundation
import MQTT
import TestSupport
import Testing

/// QoS 1 against a real mosquitto: what arrives, in which order, and when `publish` returns.
@Suite(.serialized, .enabled(if: Broker.executable != nil, Broker.skipReason))
struct DeliveryTests {
    /// A SPEC §4 notification of about 500 bytes.
    static func notification(device: String, sequence: Int) -> [UInt8] {
        let event = sequence % 2 == 0 ? "entry" : "exit"
        return Array("""
            {"identifier":"depot-north-arrivals","deliveryId":"depot-north-arrivals/\(device)/\(sequence)","content":{"title":"Arrived at Depot North","subtitle":"\(device)","body":"\(device) \(event) Depot North at 2026-11-20T08:15:02Z","badge":1,"sound":"default","categoryIdentifier":"arrival","threadIdentifier":"depot-north","summaryArgument":"\(device)","userInfo":{"any":["JSON","value"]}},"trigger":{"type":"location","event":"\(event)","repeats":true,"region":{"type":"circle","id":"depot-north","name":"Depot North"}},"device":"\(device)","fix":{"timestamp":"2026-11-20T08:15:02Z","latitude":52.5201,"longitude":13.4049,"horizontalAccuracy":8},"firedAt":"2026-11-20T08:15:02Z"}
            """.utf8)
    }

    @Test func qos1MessagesArriveInOrderPerDeviceWithExactPayloads() async throws {
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("geotrigger/#")
        let publisher = try MQTTClient(broker.options())
        let template = try MQTTTopicTemplate("geotrigger/{device}/{event}")

        let devices = (0..<10).map { "truck-\($0)" }
        var sent: [String: [[UInt8]]] = [:]
        var batch: [MQTTMessage] = []
        for k in 0..<2_000 {
            let device = devices[(k * 7) % devices.count]
            let payload = Self.notification(device: device, sequence: k)
            let topic = template.render(MQTTTopicFields(device: device, event: k % 2 == 0 ? "entry" : "exit",
                                                        identifier: "depot-north-arrivals", regionId: "depot-north"))
            batch.append(MQTTMessage(topic: topic, payload: payload))
            sent[device, default: []].append(payload)
            if batch.count == 250 {
                try await publisher.publish(batch)
                batch.removeAll()
            }
        }
        // Single publishes after the batches keep the order too.
        for k in 2_000..<2_020 {
            let payload = Self.notification(device: "truck-0", sequence: k)
            try await publisher.publish(topic: "geotrigger/truck-0/entry", payload: payload)
            sent["truck-0", default: []].append(payload)
        }

        let all = await received.wait(count: 2_020)
        #expect(all.count == 2_020)
        for device in devices {
            let got = all.filter { $0.topic.hasPrefix("geotrigger/\(device)/") }.map(\.payload)
            #expect(got == sent[device], "\(device): order or payloads differ")
        }
        #expect(all.allSatisfy { $0.qos == .atLeastOnce })
        await publisher.close()
        await subscriber.close()
    }

    @Test func publishReturnsOnlyOnceTheBrokerAcknowledged() async throws {
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("acks/#")
        let publisher = try MQTTClient(broker.options { $0.publishTimeout = .milliseconds(800) })
        try await publisher.publish(topic: "acks/first", payload: [1])

        // A stopped broker keeps the connection open but sends no PUBACK: publish must not return success.
        broker.pause()
        let start = ContinuousClock.now
        let error = await #expect(throws: MQTTError.self) {
            try await publisher.publish(topic: "acks/second", payload: [2])
        }
        #expect(ContinuousClock.now - start >= .milliseconds(700))
        if case .timeout(let reason)? = error { #expect(reason.contains("1 of 1")) } else { Issue.record("expected .timeout, got \(String(describing: error))") }
        #expect(error?.isRetryable == true)

        // Resumed, the broker acknowledges what libmosquitto already sent: it arrives (at least once).
        broker.resume()
        try await publisher.publish(topic: "acks/third", payload: [3])
        let all = await received.wait(count: 3)
        #expect(all.map(\.payload) == [[1], [2], [3]])
        await publisher.close()
        await subscriber.close()
    }

    @Test func reconnectsWithBackoffAfterTheBrokerRestarts() async throws {
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("restart/#")
        let publisher = try MQTTClient(broker.options { $0.publishTimeout = .seconds(1) })
        for k in 0..<50 { try await publisher.publish(topic: "restart/a", payload: [UInt8(k)]) }
        // The broker acknowledges a publish before it has forwarded it, and this one keeps nothing across a restart:
        // stop it only once the subscriber has the first 50 (on a loaded machine the last few were lost otherwise).
        #expect(await received.wait(count: 50).count == 50)

        broker.stop()
        try await Task.sleep(for: .milliseconds(200))
        #expect(!publisher.isConnected)
        // While the broker is down a publish waits for the connection, then fails with a retryable error.
        let error = await #expect(throws: MQTTError.self) {
            try await publisher.publish(topic: "restart/a", payload: [200])
        }
        if case .notConnected(let reason)? = error {
            #expect(reason.contains("Connection refused"), "reason: \(reason)")
        } else {
            Issue.record("expected .notConnected, got \(String(describing: error))")
        }
        #expect(error?.isRetryable == true)

        try broker.start()
        // The backoff is capped at 0.5 s here, so both clients are back well within the publish timeout.
        try await publisher.waitUntilConnected(timeout: .seconds(5))
        try await Task.sleep(for: .milliseconds(700))  // the subscriber resubscribes on its own reconnection
        for k in 50..<100 { try await publisher.publish(topic: "restart/a", payload: [UInt8(k)]) }
        let all = await received.wait(count: 100)
        let after = all.map { $0.payload[0] }.filter { $0 >= 50 && $0 < 200 }
        #expect(Array(after.suffix(50)) == (50..<100).map(UInt8.init), "every message after the restart arrives in order")
        #expect(all.prefix(50).map { $0.payload[0] } == (0..<50).map(UInt8.init))
        await publisher.close()
        await subscriber.close()
    }

    @Test func mqtt5PublishAndSubscribe() async throws {
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options { $0.protocolVersion = .v5 })
        let received = Received(subscriber)
        try await subscriber.subscribe("v5/#")
        let publisher = try MQTTClient(broker.options { $0.protocolVersion = .v5 })
        try await publisher.publish((0..<100).map { MQTTMessage(topic: "v5/d", payload: Array("m\($0)".utf8)) })
        let all = await received.wait(count: 100)
        #expect(all.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<100).map { "m\($0)" })
        await publisher.close()
        await subscriber.close()
    }

    @Test func invalidTopicsAreRejectedBeforeAnythingIsSent() async throws {
        let broker = try Broker()
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("#")
        let publisher = try MQTTClient(broker.options())
        let batch = [MQTTMessage(topic: "ok/1", payload: [1]), MQTTMessage(topic: "bad/+/x", payload: [2])]
        await #expect(throws: MQTTError.rejected(index: 1, reason: "the topic \"bad/+/x\" contains a wildcard (+ or #)")) {
            try await publisher.publish(batch)
        }
        await #expect(throws: MQTTError.self) { try await publisher.publish(topic: "", payload: []) }
        await #expect(throws: MQTTError.self) { try await publisher.publish(topic: "a\u{1}b", payload: []) }
        #expect(MQTTError.rejected(index: 0, reason: "").isRetryable == false)
        try await publisher.publish(topic: "ok/2", payload: [3])
        let all = await received.wait(count: 1)
        #expect(all.map(\.payload) == [[3]], "nothing of the rejected batch was sent")
        await publisher.close()
        await subscriber.close()
    }

    /// MQTT 5: a broker ACL refuses some messages of a pipelined batch. The publish reports exactly those (with the
    /// PUBACK reason) once every PUBACK is in; the others were taken and reached the subscriber once.
    @Test func refusedMessagesAreReportedEachWithTheBrokersReason() async throws {
        let acl = TestFolders.path("acl").path
        defer { try? FileManager.default.removeItem(atPath: acl) }
        try "topic write ok/#\ntopic read #\n".write(toFile: acl, atomically: true, encoding: .utf8)
        let broker = try Broker(settings: "allow_anonymous true\nacl_file \(acl)")
        let subscriber = try MQTTClient(broker.options())
        let received = Received(subscriber)
        try await subscriber.subscribe("#")
        let publisher = try MQTTClient(broker.options { $0.protocolVersion = .v5 })
        let batch = (0..<10).map { k in MQTTMessage(topic: k % 3 == 1 ? "no/\(k)" : "ok/\(k)", payload: [UInt8(k)]) }
        let error = await #expect(throws: MQTTError.self) { try await publisher.publish(batch) }
        guard case .refused(let refused)? = error else {
            Issue.record("expected .refused, got \(String(describing: error))")
            return
        }
        #expect(Set(refused.keys) == [1, 4, 7])
        #expect(refused.values.allSatisfy { $0.contains("0x87") }, "\(refused)")
        #expect(error?.isRetryable == false)
        let all = await received.wait(count: 7)
        try await Task.sleep(for: .milliseconds(200))
        #expect(received.all.map(\.payload) == [[0], [2], [3], [5], [6], [8], [9]], "\(all.map(\.topic))")
        await publisher.close()
        await subscriber.close()
    }

    @Test func closeFailsWaitingPublishesAndLaterCalls() async throws {
        let broker = try Broker()
        broker.stop()
        let client = try MQTTClient(broker.options { $0.publishTimeout = .seconds(30) })
        let waiting = Task { () -> MQTTError? in
            do throws(MQTTError) { try await client.publish(topic: "x", payload: [1]); return nil } catch { return error }
        }
        try await Task.sleep(for: .milliseconds(300))
        await client.close()
        #expect(await waiting.value == MQTTError.closed)
        await #expect(throws: MQTTError.closed) { try await client.publish(topic: "x", payload: [1]) }
        await client.close()  // idempotent
    }
}
