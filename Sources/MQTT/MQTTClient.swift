import CMosquitto
import Dispatch
import Foundation

/// An MQTT 3.1.1 / 5 client over libmosquitto that publishes with QoS 1 and returns once the broker acknowledged.
///
/// It connects in the background as soon as it is created and reconnects after every failure, waiting
/// `reconnectDelayMinimum`, doubling up to `reconnectDelayMaximum`. A publish issued while disconnected **waits for
/// the connection** until `publishTimeout`, then fails with the retryable `notConnected` carrying the last connection
/// error; it fails at once with `connectionRefused` when the broker refused the last attempt (credentials) or the TLS
/// peer could not be verified. Messages already handed to libmosquitto when the connection drops are resent by it
/// after reconnecting; their publish succeeds if the PUBACKs arrive before the timeout, else it fails with
/// `timeout` and they may still arrive later: delivery is at least once, and consumers deduplicate.
public final class MQTTClient: Sendable {
    public let options: Options
    /// Messages received on `subscribe`d filters, in arrival order; ends when the client is closed.
    public let messages: AsyncStream<MQTTMessage>
    private let handle: MosquittoHandle
    private let shared: ClientState
    private let wake = DispatchSemaphore(value: 0)

    public init(_ options: Options) throws(MQTTError) {
        self.options = options
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTMessage.self)
        messages = stream
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        shared = ClientState(endpoint: "\(host):\(options.port)", version: options.protocolVersion, messageSink: continuation)
        handle = try MosquittoHandle(options: options, state: shared)
        let loop = NetworkLoop(handle: handle, state: shared, options: options, wake: wake)
        let thread = Thread { loop.run() }
        thread.name = "mqtt \(host):\(options.port)"
        thread.start()
    }

    deinit {
        shared.state.withLock { $0.closing = true }
        _ = mosquitto_disconnect(handle.pointer)
        handle.wakeNetworkThread()
        wake.signal()
    }

    /// Whether the last connection attempt succeeded and has not been lost since.
    public var isConnected: Bool { shared.state.withLock { $0.link == .connected } }

    /// Waits for a connection (e.g. at startup, to report bad credentials early).
    public func waitUntilConnected(timeout: Duration? = nil) async throws(MQTTError) {
        try await waitForLink(until: .now + (timeout ?? options.publishTimeout))
    }

    /// Publishes one message and returns once the broker acknowledged it (PUBACK for QoS 1, PUBCOMP for QoS 2; for
    /// QoS 0 once handed to libmosquitto).
    public func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = false) async throws(MQTTError) {
        try await publish([MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain)])
    }

    /// Publishes the messages in order without waiting between them (MQTT keeps a client's messages in order) and
    /// returns once all are acknowledged, within one `publishTimeout`. Topics are checked first: an invalid one
    /// rejects the batch before anything is sent. `.refused` names the messages the broker refused (MQTT 5), once
    /// every PUBACK is in: all the others were acknowledged. On other errors some messages may have been delivered.
    public func publish(_ batch: [MQTTMessage]) async throws(MQTTError) {
        guard !batch.isEmpty else { return }
        for (index, message) in batch.enumerated() {
            if let problem = Self.problem(topic: message.topic, payloadCount: message.payload.count) {
                throw .rejected(index: index, reason: problem)
            }
        }
        let timeout = options.publishTimeout
        let deadline = ContinuousClock.now + timeout
        try await waitForLink(until: deadline)
        let acknowledged = batch.count { $0.qos != .atMostOnce }
        let id = shared.state.withLock { ClientState.register(.acknowledgements(remaining: acknowledged, refused: [:]), in: &$0) }
        for (index, message) in batch.enumerated() {
            guard let failure = send(message, index: index, waiter: id) else { continue }
            shared.complete(id, .failure(failure))
            break
        }
        if acknowledged == 0 { shared.complete(id, .success(())) }
        let total = batch.count
        try await shared.wait(id, until: deadline) { s in
            let remaining = if case .acknowledgements(let r, _) = s.waiters[id]?.kind { r } else { total }
            let link = if case .down(let e) = s.link { "; \(e)" } else { "" }
            return .timeout("\(remaining) of \(total) message(s) not acknowledged within \(timeout)\(link)")
        }.get()
    }

    /// Subscribes and returns once the broker granted it; the subscription is renewed on every reconnection.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atLeastOnce) async throws(MQTTError) {
        guard !filter.isEmpty, mosquitto_sub_topic_check(filter) == MOSQ_ERR_SUCCESS.rawValue else {
            throw .rejected(index: 0, reason: "invalid topic filter \"\(filter)\"")
        }
        let deadline = ContinuousClock.now + options.publishTimeout
        try await waitForLink(until: deadline)
        let pointer = handle.pointer
        let id = try shared.state.withLock { s throws(MQTTError) -> Int in
            var mid: Int32 = 0
            let rc = mosquitto_subscribe(pointer, &mid, filter, qos.rawValue)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .notConnected("mosquitto_subscribe: \(MosquittoHandle.describe(rc))")
            }
            s.subscriptions.append((filter, qos))
            let id = ClientState.register(.subscription, in: &s)
            s.subscriptionMids[mid] = id
            return id
        }
        handle.wakeNetworkThread()
        try await shared.wait(id, until: deadline) { _ in .timeout("no SUBACK for \"\(filter)\"") }.get()
    }

    /// Disconnects and stops the network thread; waiting publishes fail with `closed`. Idempotent.
    public func close() async {
        let id = shared.state.withLock { s -> Int? in
            s.closing = true
            return s.finished ? nil : ClientState.register(.shutdown, in: &s)
        }
        _ = mosquitto_disconnect(handle.pointer)  // wakes the network thread when connected
        handle.wakeNetworkThread()  // (in its own poll, when the socket's descriptor is too high for select)
        wake.signal()  // and when waiting to reconnect
        if let id { _ = await shared.wait(id, until: .now + .seconds(60)) { _ in .closed } }
    }

    // MARK: -

    private func waitForLink(until deadline: ContinuousClock.Instant) async throws(MQTTError) {
        let id = try shared.state.withLock { s throws(MQTTError) -> Int? in
            if s.closing || s.finished { throw .closed }
            switch s.link {
            case .connected: return nil
            case .down(let error) where !error.isRetryable: throw error
            default: return ClientState.register(.link, in: &s)
            }
        }
        guard let id else { return }
        let timeout = options.publishTimeout, endpoint = shared.endpoint
        try await shared.wait(id, until: deadline) { s in
            let last = if case .down(let e) = s.link { ": \(e)" } else { " (still connecting)" }
            return .notConnected("no connection to \(endpoint) within \(timeout)\(last)")
        }.get()
    }

    private enum Sent { case queued, stop, failed(MQTTError) }

    /// Hands one message to libmosquitto under the state lock, so its PUBACK finds the message id registered.
    private func send(_ message: MQTTMessage, index: Int, waiter id: Int) -> MQTTError? {
        let pointer = handle.pointer
        let sent = shared.state.withLock { s -> Sent in
            // The batch already ended (timeout, cancellation, close or a rejected message): send no more.
            guard case .pending = s.waiters[id]?.phase else { return .stop }
            var mid: Int32 = 0
            let rc = message.payload.withUnsafeBytes { bytes in
                mosquitto_publish(pointer, &mid, message.topic, Int32(bytes.count), bytes.baseAddress,
                                  message.qos.rawValue, message.retain)
            }
            // For QoS > 0, NO_CONN means queued: libmosquitto sends it after reconnecting.
            if rc == MOSQ_ERR_SUCCESS.rawValue || (rc == MOSQ_ERR_NO_CONN.rawValue && message.qos != .atMostOnce) {
                if message.qos != .atMostOnce { s.inflight[mid] = (id, index) }
                return .queued
            }
            let text = "mosquitto_publish: \(MosquittoHandle.describe(rc))"
            switch rc {
            case MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue, MOSQ_ERR_PAYLOAD_SIZE.rawValue,
                 MOSQ_ERR_OVERSIZE_PACKET.rawValue, MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue, MOSQ_ERR_RETAIN_NOT_SUPPORTED.rawValue:
                return .failed(.rejected(index: index, reason: text))
            default:
                return .failed(.notConnected(text))
            }
        }
        switch sent {
        case .queued:
            handle.wakeNetworkThread()
            return nil
        case .stop: return nil
        case .failed(let error): return error
        }
    }

    /// Why libmosquitto would refuse to publish this, or nil.
    static func problem(topic: String, payloadCount: Int) -> String? {
        let length = topic.utf8.count
        if length == 0 { return "the topic is empty" }
        if length > 65535 { return "the topic is \(length) bytes long (at most 65535)" }
        if topic.utf8.contains(0) || mosquitto_validate_utf8(topic, Int32(length)) != MOSQ_ERR_SUCCESS.rawValue {
            return "the topic \"\(topic)\" is not valid MQTT UTF-8 (no NUL or control characters)"
        }
        if mosquitto_pub_topic_check(topic) != MOSQ_ERR_SUCCESS.rawValue {
            return "the topic \"\(topic)\" contains a wildcard (+ or #)"
        }
        if payloadCount > 268_435_455 { return "the payload is \(payloadCount) bytes (MQTT allows 268435455)" }
        return nil
    }
}
