import SystemErrors
import CMosquitto
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Once per process, before the first handle (libmosquitto initialises OpenSSL here).
private let libraryInitialized: Void = { _ = mosquitto_lib_init() }()

/// Owns one `struct mosquitto*` and the retained `ClientState` given to it as userdata. libmosquitto is thread-safe
/// once marked threaded (`mosquitto_threaded_set`): publishes from any thread only queue packets and wake the
/// network thread, which does all socket work. The handle is destroyed after the network thread has finished,
/// because that thread holds the last reference.
final class MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    private let userdata: Unmanaged<ClientState>
    /// A pipe that wakes the network thread's own `poll` (see `NetworkLoop.pass`), used instead of `mosquitto_loop`
    /// when the socket's descriptor is too high for `select`; libmosquitto's own wake-up pipe is not reachable.
    let wakeRead: Int32, wakeWrite: Int32
    /// Set once `select` has refused this client's descriptors: the network thread polls them itself from then on.
    let ownPoll = Atomic<Bool>(false)

    init(options: MQTTClient.Options, state: ClientState) throws(MQTTError) {
        _ = libraryInitialized
        let box = Unmanaged.passRetained(state)
        guard let p = mosquitto_new(options.clientID, options.cleanSession, box.toOpaque()) else {
            let reason = errno == EINVAL ? "a client identifier is required without a clean session" : SystemError.text()
            box.release()
            throw .invalidOptions("mosquitto_new: \(reason)")
        }
        pointer = p
        userdata = box
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        // Every stored property is set: if `configure` throws, deinit runs and destroys the handle and releases the
        // userdata. (Doing it here as well freed both twice.)
        try configure(options)
        installCallbacks()
    }

    deinit {
        mosquitto_destroy(pointer)
        userdata.release()
        for fd in [wakeRead, wakeWrite] where fd >= 0 { close(fd) }
    }

    /// After a packet is queued from another thread: wakes the network thread when it waits in its own `poll`.
    func wakeNetworkThread() {
        guard wakeWrite >= 0, ownPoll.load(ordering: .relaxed) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw .invalidOptions("\(what): \(MosquittoHandle.describe(rc))")
    }

    private func configure(_ o: MQTTClient.Options) throws(MQTTError) {
        guard (1...65535).contains(o.port) else { throw .invalidOptions("port \(o.port) is not in 1…65535") }
        guard !o.host.isEmpty else { throw .invalidOptions("the host is empty") }
        guard o.keepAlive >= .seconds(5), o.keepAlive <= .seconds(65535) else {
            throw .invalidOptions("keepalive \(o.keepAlive) is not between 5 s and 65535 s")
        }
        guard o.reconnectDelayMinimum > .zero, o.reconnectDelayMinimum <= o.reconnectDelayMaximum else {
            throw .invalidOptions("the reconnect delays must satisfy 0 < minimum ≤ maximum")
        }
        guard (1...65535).contains(o.maximumInflight) else { throw .invalidOptions("maximumInflight \(o.maximumInflight) is not in 1…65535") }
        guard o.publishTimeout > .zero else { throw .invalidOptions("the publish timeout must be positive") }
        try check(mosquitto_threaded_set(pointer, true), "mosquitto_threaded_set")
        let version = o.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, version), "protocol version")
        try check(mosquitto_int_option(pointer, MOSQ_OPT_SEND_MAXIMUM, Int32(o.maximumInflight)), "maximumInflight")
        // Nagle's algorithm held each batch's last PUBLISH until the broker's delayed ACK (~40 ms): a batch of 256
        // took 45 ms. A publisher that waits for acknowledgements gains nothing from coalescing small writes.
        try check(mosquitto_int_option(pointer, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        if o.username != nil || o.password != nil {
            guard o.username != nil else { throw .invalidOptions("a password needs a username") }
            try check(mosquitto_username_pw_set(pointer, o.username, o.password), "username/password")
        }
        if let tls = o.tls {
            guard tls.caFile != nil || tls.caDirectory != nil else {
                throw .invalidOptions("TLS needs a CA file or a CA directory to verify the broker")
            }
            guard (tls.certificateFile == nil) == (tls.keyFile == nil) else {
                throw .invalidOptions("a TLS client certificate needs its key file, and a key its certificate")
            }
            for path in [tls.caFile, tls.certificateFile, tls.keyFile].compactMap({ $0 }) where access(path, R_OK) != 0 {
                throw .invalidOptions("TLS file \(path): \(SystemError.text())")
            }
            try check(mosquitto_tls_set(pointer, tls.caFile, tls.caDirectory, tls.certificateFile, tls.keyFile, nil), "TLS")
            try check(mosquitto_tls_insecure_set(pointer, tls.insecure), "TLS insecure")
        }
    }

    /// Capture-free C callbacks; each finds its `ClientState` through the userdata pointer.
    private func installCallbacks() {
        mosquitto_connect_v5_callback_set(pointer) { mosquitto, userdata, rc, _, _ in
            ClientState.from(userdata).connected(rc, mosquitto: mosquitto)
        }
        mosquitto_disconnect_v5_callback_set(pointer) { _, userdata, rc, _ in
            ClientState.from(userdata).disconnected(rc)
        }
        mosquitto_publish_v5_callback_set(pointer) { _, userdata, mid, reason, _ in
            ClientState.from(userdata).acknowledged(mid: mid, reason: reason)
        }
        mosquitto_subscribe_callback_set(pointer) { _, userdata, mid, count, granted in
            let first = count > 0 ? granted?.pointee ?? 0x80 : 0x80
            ClientState.from(userdata).subscribed(mid: mid, granted: first)
        }
        mosquitto_message_callback_set(pointer) { _, userdata, message in
            guard let m = message?.pointee, let topic = m.topic else { return }
            let payload = m.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(m.payloadlen))) } ?? []
            ClientState.from(userdata).received(MQTTMessage(topic: String(cString: topic), payload: payload,
                                                            qos: MQTTQoS(rawValue: m.qos) ?? .atMostOnce, retain: m.retain))
        }
        Self.setLogCapture(pointer, true)
    }

    /// libmosquitto formats every debug line once a log callback is set; it is only needed while connecting, to keep
    /// the text of TLS and socket errors that no other callback reports.
    static func setLogCapture(_ pointer: OpaquePointer, _ on: Bool) {
        if on {
            mosquitto_log_callback_set(pointer) { _, userdata, level, text in
                guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
                ClientState.from(userdata).logged(String(cString: text))
            }
        } else {
            mosquitto_log_callback_set(pointer, nil)
        }
    }

    /// `mosquitto_strerror`, with the errno text for MOSQ_ERR_ERRNO.
    static func describe(_ rc: Int32, errno code: Int32 = errno) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return SystemError.text(code) }
        return String(cString: mosquitto_strerror(rc))
    }
}
