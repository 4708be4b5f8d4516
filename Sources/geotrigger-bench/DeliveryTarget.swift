import Delivery
import Logging
import MQTT
import Sinks
import Synchronization
import TriggerEngine

/// Where `geotrigger-bench delivery` delivers: a fresh sink for each run, and what to stop at the end.
struct DeliveryTarget {
    /// The batch sizes measured, one backlog and one steady run each.
    let batches: [Int]
    let makeSink: (_ batch: Int) throws -> ConfiguredSink
    /// Set when the receiver is offline during the backlog run and drains its queued messages afterwards.
    var pause: (() async -> Void)? = nil
    var resume: (() async throws -> Void)? = nil
    let stop: () async -> Void

    /// Ends a run's MQTT connection, so each run has its own and none is left publishing.
    func close(_ configured: ConfiguredSink) async {
        if let mqtt = configured.sink as? MQTTSink { await mqtt.close() }
    }

    static func start(_ kind: DeliveryBench.SinkKind, arrivals: Arrivals, batches: [Int], concurrency: Int,
                      liveReceiver: Bool, logger: Logger) async throws -> DeliveryTarget {
        switch kind {
        case .webhook:
            let receiver = Receiver(arrivals)
            let url = "http://127.0.0.1:\(try await receiver.start(logger: logger))/hook"
            return DeliveryTarget(batches: batches, makeSink: { batch in
                let options = WebhookOptions(batch: batch, secret: Array("bench-secret".utf8), concurrency: concurrency)
                return ConfiguredSink(sink: WebhookSink(url: url, name: "webhook:\(url)", options: options),
                                      concurrency: concurrency, batchSize: batch)
            }, stop: { await receiver.stop() })
        case .mqtt:
            let broker = try LocalMosquitto.start()
            do {
                let receiver = MQTTReceiver(port: broker.port, arrivals: arrivals)
                try await receiver.connect()
                let spec = try MQTTSinkSpec(parsing: "mqtt://127.0.0.1:\(broker.port)/geotrigger/{device}/{event}")
                // As serve drives it (SinkConfiguration+Sink.swift): the batch and concurrency are the sink's own.
                return DeliveryTarget(batches: [MQTTSink.batchSize], makeSink: { _ in
                    ConfiguredSink(sink: try MQTTSink(spec: spec, name: spec.name),
                                   concurrency: MQTTSink.concurrency, batchSize: MQTTSink.batchSize)
                }, pause: liveReceiver ? nil : { await receiver.disconnect() },
                   resume: liveReceiver ? nil : { try await receiver.connect() },
                   stop: {
                    await receiver.disconnect()
                    broker.stop()
                })
            } catch {
                broker.stop()
                throw error
            }
        }
    }
}

/// The benchmark's MQTT subscriber: QoS 1 with a persistent session, so that while it is disconnected the broker
/// keeps every message for it (`max_queued_messages`) and hands them over when it reconnects.
final class MQTTReceiver: Sendable {
    private let port: Int
    private let arrivals: Arrivals
    private let current = Mutex<(client: MQTTClient, reader: Task<Void, Never>)?>(nil)

    init(port: Int, arrivals: Arrivals) {
        self.port = port
        self.arrivals = arrivals
    }

    func connect() async throws {
        let client = try MQTTClient(MQTTClient.Options(host: "127.0.0.1", port: port, clientID: "geotrigger-bench-receiver",
                                                       cleanSession: false))
        let arrivals = self.arrivals
        // Arrival is when the message leaves the client's stream, in this process (as the webhook's is in its handler).
        let reader = Task {
            for await message in client.messages {
                arrivals.note(Arrivals.deliveryIds(message.payload), at: Timestamp.wallClock().microseconds)
            }
        }
        current.withLock { $0 = (client, reader) }
        try await client.subscribe("geotrigger/#", qos: .atLeastOnce)
    }

    func disconnect() async {
        guard let (client, reader) = current.withLock({ s in defer { s = nil }; return s }) else { return }
        await client.close()
        await reader.value
    }
}
