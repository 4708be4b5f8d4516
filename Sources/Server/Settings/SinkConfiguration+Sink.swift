import Delivery
import Sinks

extension SinkConfiguration {
    /// The sink and how the dispatcher drives it: a file or stdout through one lane (the global firing order), a
    /// webhook per device with the configured concurrency and batch, an MQTT broker per device over one connection.
    func makeSink(_ delivery: DeliveryConfiguration) throws(DeliveryFailure) -> ConfiguredSink {
        switch self {
        case .ndjson(let path):
            // Standard output has no fsync to share, and whoever reads it may want each line at once.
            ConfiguredSink(sink: try NDJSONSink(path: path, name: name, options: delivery.ndjson), concurrency: 1, batchSize: 1024,
                           linger: path == "-" ? .zero : delivery.ndjson.linger)
        case .webhook(let url):
            ConfiguredSink(sink: WebhookSink(url: url, name: name, options: delivery.webhook),
                           concurrency: delivery.webhook.concurrency, batchSize: delivery.webhook.batch)
        case .mqtt(let spec):
            ConfiguredSink(sink: try MQTTSink(spec: spec, name: name), concurrency: MQTTSink.concurrency, batchSize: MQTTSink.batchSize)
        }
    }
}
