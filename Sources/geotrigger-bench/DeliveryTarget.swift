import Delivery
import Logging
import MQTT
import TriggerEngine

/// Where `geotrigger-bench delivery` delivers: a fresh sink for each run, and what to stop at the end.
struct DeliveryTarget {
    /// The batch sizes measured, one backlog and one steady run each.
    let batches: [Int]
    let makeSink: (_ batch: Int) throws -> ConfiguredSink
    let stop: () async -> Void

    /// Ends a run's MQTT connection, so each run has its own and none is left publishing.
    func close(_ configured: ConfiguredSink) async {
        if let mqtt = configured.sink as? MQTTSink { await mqtt.close() }
    }

    static func start(_ kind: DeliveryBench.SinkKind, arrivals: Arrivals, batches: [Int], concurrency: Int,
                      logger: Logger) async throws -> DeliveryTarget {
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
                let subscriber = try MQTTClient(MQTTClient.Options(host: "127.0.0.1", port: broker.port))
                // Arrival is when the message leaves the client's stream, in this process (as the webhook's is in
                // its handler).
                let reader = Task {
                    for await message in subscriber.messages {
                        arrivals.note(Arrivals.deliveryIds(message.payload), at: Timestamp.wallClock().microseconds)
                    }
                }
                try await subscriber.subscribe("geotrigger/#", qos: .atLeastOnce)
                let spec = try MQTTSinkSpec(parsing: "mqtt://127.0.0.1:\(broker.port)/geotrigger/{device}/{event}")
                // As serve drives it (SinkConfiguration+Sink.swift): the batch and concurrency are the sink's own.
                return DeliveryTarget(batches: [MQTTSink.batchSize], makeSink: { _ in
                    ConfiguredSink(sink: try MQTTSink(spec: spec, name: spec.name),
                                   concurrency: MQTTSink.concurrency, batchSize: MQTTSink.batchSize)
                }, stop: {
                    await subscriber.close()
                    await reader.value
                    broker.stop()
                })
            } catch {
                broker.stop()
                throw error
            }
        }
    }
}
