import CKafka
import Foundation
import Synchronization

/// An idempotent producer (`enable.idempotence=true`, so `acks=all` and no duplicates or reordering from its own
/// retries) that places keyed messages with the Java client's partitioner (`murmur2_random`). `send` returns once
/// the broker acknowledged every message; `produce` queues one and `flush` later waits for all queued ones and says
/// how many failed.
///
/// librdkafka's handle is thread-safe; this class owns it and the thread that polls it for delivery reports, and
/// destroys both once, when it goes. Calls block their thread: callers run them off Swift's cooperative pool.
public final class KafkaProducer: @unchecked Sendable {
    let handle: OpaquePointer
    public let brokers: String
    private let failures: ProducerFailures
    private let poller: Poller

    /// - Parameter settings: more librdkafka properties (they override the defaults here).
    public init(brokers: String, clientId: String, settings: KafkaSettings = KafkaSettings()) throws(KafkaError) {
        self.brokers = brokers
        var all = KafkaSettings([
            ("bootstrap.servers", brokers), ("client.id", clientId),
            ("enable.idempotence", "true"), ("acks", "all"),
            ("partitioner", "murmur2_random"),
            // A message not acknowledged within this fails (reported) instead of waiting for ever.
            ("message.timeout.ms", "30000"),
            ("linger.ms", "2"),
        ])
        all.properties += settings.properties
        let conf = try all.makeConf()
        failures = ProducerFailures()
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(failures).toOpaque())
        rd_kafka_conf_set_dr_msg_cb(conf, deliveryReport)
        rd_kafka_conf_set_error_cb(conf, clientError)
        handle = try KafkaSettings.makeHandle(RD_KAFKA_PRODUCER, conf, what: "producer for \(brokers)")
        poller = Poller(handle: handle, name: "kafka producer \(clientId)")
    }

    deinit {
        poller.stop()
        // Whatever is still queued gets a short chance to go out; reports after this go nowhere.
        _ = rd_kafka_flush(handle, 2000)
        rd_kafka_destroy(handle)
    }

    /// Produces every message and waits until the broker acknowledged them all; their offsets, in order.
    @discardableResult
    public func send(_ messages: [KafkaMessage], timeout: Duration = .seconds(40)) throws(KafkaError) -> [Int64] {
        guard !messages.isEmpty else { return [] }
        let batch = DeliveryBatch(count: messages.count)
        for (index, message) in messages.enumerated() {
            let ticket = Unmanaged.passRetained(DeliveryTicket(batch: batch, index: index))
            do throws(KafkaError) {
                try enqueue(message, opaque: ticket.toOpaque())
            } catch {
                ticket.release()
                batch.refused("\(error)")
            }
        }
        return try batch.wait(until: Date().addingTimeInterval(timeout.seconds)).get()
    }

    /// False once librdkafka reported every broker down, until a metadata request answers again (asked only then,
    /// so a readiness probe costs nothing while all is well).
    public var brokersReachable: Bool {
        guard failures.allBrokersDown.load(ordering: .acquiring) else { return true }
        guard (try? KafkaHandle.partitionCounts(handle, timeout: .seconds(1))) != nil else { return false }
        failures.allBrokersDown.store(false, ordering: .releasing)
        return true
    }

    /// Queues one message; its outcome is counted for the next `flush`.
    public func produce(_ message: KafkaMessage) throws(KafkaError) {
        try enqueue(message, opaque: nil)
    }

    /// Waits until every queued message is acknowledged or failed; returns how many failed since the last flush.
    public func flush(timeout: Duration) throws(KafkaError) -> Int {
        try check("flush", rd_kafka_flush(handle, Int32(timeout.milliseconds)))
        return failures.take()
    }

    private func enqueue(_ message: KafkaMessage, opaque: UnsafeMutableRawPointer?) throws(KafkaError) {
        let partition = Int32(message.partition ?? Int(RD_KAFKA_PARTITION_UA))
        while true {
            // Built for each attempt: librdkafka takes them only when it takes the message.
            let headers = message.headers.isEmpty ? nil : rd_kafka_headers_new(message.headers.count)
            for (name, value) in message.headers {
                _ = value.withUnsafeBytes { rd_kafka_header_add(headers, name, -1, $0.baseAddress, $0.count) }
            }
            let code = withOptionalBytes(message.value) { value in
                withOptionalBytes(message.key) { key in
                    gt_kafka_produce(handle, message.topic, partition, key.baseAddress, key.count, value.baseAddress, value.count, headers, opaque)
                }
            }
            if code != RD_KAFKA_RESP_ERR_NO_ERROR, let headers { rd_kafka_headers_destroy(headers) }
            // The local queue is full: let the broker catch up, then try again.
            if code == RD_KAFKA_RESP_ERR__QUEUE_FULL {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            try check("produce to \(message.topic)", code)
            return
        }
    }
}

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    guard let bytes else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    return bytes.withUnsafeBytes(body)
}

/// librdkafka's delivery report: to the message's batch when it has one, else counted for `flush`. Capture-free
/// (a C function pointer); the state comes through the opaque pointers.
private let deliveryReport: @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = { _, message, opaque in
    guard let m = message?.pointee else { return }
    let failure = m.err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : String(cString: rd_kafka_err2str(m.err))
    if let ticketPointer = m._private {
        let ticket = Unmanaged<DeliveryTicket>.fromOpaque(ticketPointer).takeRetainedValue()
        ticket.batch.report(index: ticket.index, offset: m.offset, failure: failure)
    } else if let failure, let opaque {
        Unmanaged<ProducerFailures>.fromOpaque(opaque).takeUnretainedValue().record(failure)
    }
}

/// librdkafka's error callback: only "every broker down" matters here (the rest it retries by itself and reports
/// per message).
private let clientError: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = { _, code, _, opaque in
    guard let opaque, code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue else { return }
    Unmanaged<ProducerFailures>.fromOpaque(opaque).takeUnretainedValue().allBrokersDown.store(true, ordering: .releasing)
}
