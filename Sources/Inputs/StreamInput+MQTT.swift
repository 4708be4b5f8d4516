import Host
import Ingest
import Logging
import Metrics
import MQTT
import ServiceLifecycle
import Synchronization
import TriggerEngine

/// `--input mqtt://HOST:PORT/TOPIC-FILTER`: subscribes at QoS 1 with a persistent session (the broker queues what
/// arrives while the service is down) and takes each message as OwnTracks (a `_type` member; the device from the
/// topic, `owntracks/USER/DEVICE` → `USER/DEVICE`) or NDJSON fixes (the topic's last two levels as the device of
/// fixes that name none). The client reconnects by itself and renews the subscription. Messages that arrive while a
/// batch is being made durable form the next batch. A message that cannot be read is logged with its topic and
/// reason and counted; it never stops the input.
///
/// Guarantee: libmosquitto 2.0.11 (Debian 12) acknowledges a QoS 1 message (PUBACK) when it has received it, before
/// GeoTrigger has journaled it (manual acknowledgement is not in this version). A message the broker delivered is
/// lost only if the service dies in the milliseconds between receipt and the journal's fsync; a broker restart loses
/// nothing it had persisted (mosquitto saves at `autosave_interval` and on SIGTERM).
extension StreamInput {
    func followMQTT(_ spec: MQTTInputSpec) async {
        let name = spec.name
        let client: MQTTClient
        do { client = try MQTTClient(spec.options) } catch {
            logger.error("MQTT input cannot start", metadata: ["input": "\(name)", "error": "\(error)"])
            return
        }
        var delay = Duration.milliseconds(500)
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                try await client.subscribe(spec.filter, qos: .atLeastOnce)
                logger.notice("MQTT input subscribed", metadata: ["input": "\(name)", "clientId": "\(spec.options.clientID ?? "-")"])
                break
            } catch {
                logger.warning("MQTT input cannot subscribe yet; retrying", metadata: ["input": "\(name)", "error": "\(error)", "in": "\(delay)"])
                let wait = delay
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
                delay = min(delay * 2, .seconds(30))
            }
        }
        let waiting = Mutex<[MQTTMessage]>([])
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reader = Task {
            for await message in client.messages {
                waiting.withLock { $0.append(message) }
                arrived.yield()
            }
            arrived.finish()
        }
        var decoder = MQTTPayloadDecoder(input: name, logger: logger)
        for await _ in arrivals.cancelOnGracefulShutdown() {
            let messages = waiting.withLock { w -> [MQTTMessage] in defer { w.removeAll(keepingCapacity: true) }; return w }
            let fixes = decoder.fixes(of: messages)
            guard !fixes.isEmpty else { continue }
            do {
                let rejected = try await host.process(fixes: fixes)
                let metrics = InputMetrics()
                for r in rejected {
                    metrics.rejected(r.reason.rawValue)
                    logger.warning("input record rejected", metadata: ["input": "\(name)", "message": "\(r.line)", "reason": "\(r.reason)"])
                }
            } catch {
                logger.warning("input stopped", metadata: ["input": "\(name)", "reason": "\(error)"])
                break
            }
        }
        reader.cancel()
        await client.close()
        logger.notice("input stopped", metadata: ["input": "\(name)"])
    }
}

/// Reads MQTT messages into fixes: OwnTracks when the payload says `_type`, else NDJSON; numbers messages so a
/// rejection can name one.
struct MQTTPayloadDecoder {
    let input: String
    let logger: Logger
    private var received = 0

    init(input: String, logger: Logger) {
        self.input = input
        self.logger = logger
    }

    mutating func fixes(of messages: [MQTTMessage]) -> [(line: Int, fix: LocationFix)] {
        var out: [(line: Int, fix: LocationFix)] = []
        let metrics = InputMetrics()
        for m in messages {
            received += 1
            let number = received
            let topicDevice = OwnTracksDecoder.deviceOfTopic(m.topic)
            var errors: [IngestError] = []
            if m.payload.firstRange(of: Array(#""_type""#.utf8)) != nil {
                var d = OwnTracksDecoder(source: m.topic)
                d.device = topicDevice
                var ignored: [String] = []
                m.payload.withUnsafeBytes { d.decode($0, onRecord: { out.append((number, $0)) }, onIgnored: { ignored.append($0.type) }, onError: { errors.append($0) }) }
                d.finish(onRecord: { out.append((number, $0)) }, onIgnored: { ignored.append($0.type) }, onError: { errors.append($0) })
                for t in ignored { Counter(label: "geotrigger_owntracks_ignored_total", dimensions: [("type", t)]).increment() }
            } else {
                var d = NDJSONFixDecoder(source: m.topic, defaultDevice: topicDevice)
                m.payload.withUnsafeBytes { d.decode($0, onRecord: { out.append((number, $0)) }, onError: { errors.append($0) }) }
                d.finish(onRecord: { out.append((number, $0)) }, onError: { errors.append($0) })
            }
            for e in errors {
                metrics.rejected(e.kind)
                logger.warning("input record rejected", metadata: [
                    "input": "\(input)", "topic": "\(m.topic)", "message": "\(number)", "field": "\(e.field ?? "-")", "reason": "\(e.reason)"])
            }
        }
        return out
    }
}
