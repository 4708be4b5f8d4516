import CMosquitto
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// The client's network thread: drives libmosquitto's socket (`mosquitto_loop`) and reconnects with exponential
/// backoff. It replaces `mosquitto_loop_start`, whose thread (`mosquitto_loop_forever`) exits for good on TLS,
/// protocol and MQTT 5 CONNACK errors — TLS handshake failures without any callback — so nothing would reconnect
/// and nobody would learn why. Here every failure is recorded with its reason and the next attempt follows.
struct NetworkLoop: Sendable {
    let handle: MosquittoHandle
    let state: ClientState
    let options: MQTTClient.Options
    /// Signalled by `close()` to cut a backoff wait short.
    let wake: DispatchSemaphore

    private static let success = MOSQ_ERR_SUCCESS.rawValue

    func run() {
        let p = handle.pointer
        let keepAlive = Int32(options.keepAlive.components.seconds)
        var rc = mosquitto_connect_async(p, options.host, Int32(options.port), keepAlive)
        var code = errno
        while !state.isClosing {
            if rc == Self.success {
                Self.acknowledgeQuickly(mosquitto_socket(p))
                // Returns within a second at most, at once when a publish or close() queues a packet.
                rc = pass(p)
                code = errno
                if rc == Self.success { continue }
            }
            if state.isClosing { break }
            MosquittoHandle.setLogCapture(p, true)
            let failures = state.connectionFailed(rc: rc, errno: code)
            _ = wake.wait(timeout: .now() + .nanoseconds(Self.nanoseconds(options.reconnectDelay(afterFailures: failures))))
            if state.isClosing { break }
            rc = mosquitto_reconnect_async(p)
            code = errno
        }
        // Send DISCONNECT if there is a connection, so the broker drops the session cleanly.
        if mosquitto_disconnect(p) == Self.success {
            for _ in 0..<20 where mosquitto_loop(p, 50, 1) == Self.success {}
        }
        state.finishAll()
    }

    /// One pass of the network loop. `mosquitto_loop` waits in `select`, which cannot watch a descriptor of 1024 or
    /// more (its socket, or its internal wake-up pipe, made when the client was): a service holding many connections
    /// gets such descriptors, and every pass failed with MOSQ_ERR_INVAL ("Invalid function arguments"). From the
    /// first such failure on, this waits in `poll` on the socket and the handle's own wake pipe, and does the
    /// reading, writing and keep-alive work itself.
    private func pass(_ p: OpaquePointer) -> Int32 {
        if !handle.ownPoll.load(ordering: .relaxed) {
            let rc = mosquitto_loop(p, 1000, 1)
            guard rc == MOSQ_ERR_INVAL.rawValue else { return rc }
            handle.ownPoll.store(true, ordering: .relaxed)
        }
        let socket = mosquitto_socket(p)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let readable = Int16(POLLIN | POLLPRI), failed = Int16(POLLERR | POLLHUP | POLLNVAL)
        var fds = [pollfd(fd: socket, events: readable | (mosquitto_want_write(p) ? Int16(POLLOUT) : 0), revents: 0),
                   pollfd(fd: handle.wakeRead, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, nfds_t(fds.count), 1000) < 0, errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
        if fds[1].revents & Int16(POLLIN) != 0 {
            var drained = [UInt8](repeating: 0, count: 256)
            while read(handle.wakeRead, &drained, drained.count) > 0 {}
        }
        if fds[0].revents & (readable | failed) != 0 {
            let rc = mosquitto_loop_read(p, 1)
            if rc != Self.success { return rc }
        }
        if mosquitto_want_write(p) {
            let rc = mosquitto_loop_write(p, 1)
            if rc != Self.success { return rc }
        }
        return mosquitto_loop_misc(p)
    }

    /// A broker that keeps Nagle's algorithm on (mosquitto's default, `set_tcp_nodelay false`) holds each small
    /// PUBACK while an earlier one is unacknowledged, and Linux delays that ACK up to 40 ms: a batch of 256 QoS 1
    /// publishes took 45 ms. Acknowledging at once releases the PUBACKs; Linux resets the flag after a while, so it
    /// is set before every pass of the loop.
    static func acknowledgeQuickly(_ socket: Int32) {
        guard socket >= 0 else { return }
        var on: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func nanoseconds(_ d: Duration) -> Int {
        let (seconds, attoseconds) = d.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
