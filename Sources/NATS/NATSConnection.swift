import BlockingCalls
import CNATS
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One connection to a NATS cluster with its JetStream context. nats.c reconnects by itself (to any server of the
/// list, for ever, every `reconnectWait`), and buffers publishes meanwhile.
///
/// nats.c's connection and JetStream context are safe to share between threads; this class owns both pointers and
/// frees them once, when it goes. Every call blocks its thread (network round trips): callers run them off Swift's
/// cooperative pool (`NATSConnection.blocking`).
public final class NATSConnection: @unchecked Sendable {
    let connection: OpaquePointer
    let jetStream: OpaquePointer
    public let servers: [String]
    /// How long a JetStream API call or a publish waits for its answer.
    public let apiWait: Duration
    /// Asynchronous publishes and JetStream's answers to them, by message id.
    let acknowledgements = AsyncAcknowledgements()

    /// Connects to the first reachable server of `servers` (`nats://host:port`).
    /// - Parameters:
    ///   - apiWait: how long a JetStream API call or a publish waits for its answer; a cluster electing a new
    ///     stream leader takes seconds.
    public init(servers: [String], name: String, connectTimeout: Duration = .seconds(2),
                reconnectWait: Duration = .milliseconds(250), apiWait: Duration = .seconds(10)) throws(NATSError) {
        self.servers = servers
        self.apiWait = apiWait
        var options: OpaquePointer?
        try check("natsOptions_Create", natsOptions_Create(&options))
        defer { natsOptions_Destroy(options) }
        var cStrings = servers.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let status = cStrings.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: b.count) {
                natsOptions_SetServers(options, $0, Int32(b.count))
            }
        }
        try check("natsOptions_SetServers \(servers)", status)
        try check("natsOptions_SetName", natsOptions_SetName(options, name))
        try check("natsOptions_SetTimeout", natsOptions_SetTimeout(options, connectTimeout.milliseconds))
        try check("natsOptions_SetMaxReconnect", natsOptions_SetMaxReconnect(options, -1))
        try check("natsOptions_SetReconnectWait", natsOptions_SetReconnectWait(options, reconnectWait.milliseconds))
        // Publishes made while reconnecting are kept (up to 64 MB) and sent on reconnect; JetStream acks them.
        try check("natsOptions_SetReconnectBufSize", natsOptions_SetReconnectBufSize(options, 64 << 20))
        var nc: OpaquePointer?
        try check("connect to \(servers.joined(separator: ","))", natsConnection_Connect(&nc, options))
        var js: OpaquePointer?
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = apiWait.milliseconds
        jsOptions.PublishAsync.MaxPending = 4096
        // Every asynchronous publish carries a message id, and each positive answer is noted under it: a wait then
        // checks its own publishes one by one, so an answer that comes late, for a publish an earlier wait gave up
        // on, is never taken for one of this round's (counts of publishes and answers could be).
        jsOptions.PublishAsync.AckHandler = { _, msg, ack, _, closure in
            let acknowledgements = Unmanaged<AsyncAcknowledgements>.fromOpaque(closure!).takeUnretainedValue()
            if let ack, let msg {
                var value: UnsafePointer<CChar>?
                if natsMsgHeader_Get(msg, "Nats-Msg-Id", &value) == NATS_OK, let value {
                    acknowledgements.stored(String(cString: value), sequence: ack.pointee.Sequence)
                }
            }
            natsMsg_Destroy(msg)
        }
        jsOptions.PublishAsync.AckHandlerClosure = Unmanaged.passUnretained(acknowledgements).toOpaque()
        let s = natsConnection_JetStream(&js, nc, &jsOptions)
        guard s == NATS_OK, let js else {
            natsConnection_Destroy(nc)
            throw NATSError("natsConnection_JetStream", status: s)
        }
        connection = nc!
        jetStream = js
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }

    /// Whether the connection is up (not reconnecting or closed).
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

    /// Core NATS publish: no acknowledgement, nothing stored unless a stream happens to listen (tests of subject
    /// mappings). Named apart from the JetStream `publish` so that one is never called by mistake.
    public func publishWithoutAcknowledgement(subject: String, data: [UInt8]) throws(NATSError) {
        try check("publish \(subject)", data.withUnsafeBytes { natsConnection_Publish(connection, subject, $0.baseAddress, Int32($0.count)) })
        try check("flush", natsConnection_Flush(connection))
    }

    /// Runs a blocking nats.c call on a thread of its own pool, so Swift's cooperative threads never wait on the
    /// network.
    public static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws(NATSError) -> T) async throws(NATSError) -> T {
        let result: Result<T, NATSError> = await withCheckedContinuation { c in
            BlockingCalls.submit { c.resume(returning: Result { () throws(NATSError) in try body() }) }
        }
        return try result.get()
    }
}

extension Duration {
    /// Whole milliseconds, as nats.c's timeouts take them.
    public var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// Asynchronous publishes made and acknowledged (nats.c's callback runs on its own thread).
final class AsyncAcknowledgements: Sendable {
    private struct State {
        /// The ids published since the last wait, in order.
        var published: [String] = []
        /// Positive answers not yet taken by a wait: id → stream sequence.
        var stored: [String: UInt64] = [:]
    }
    private let state = Mutex(State())

    func published(_ id: String) { state.withLock { $0.published.append(id) } }

    func stored(_ id: String, sequence: UInt64) { state.withLock { $0.stored[id] = sequence } }

    /// This round's publishes: how many have no positive answer, and where the others were stored. Forgets the
    /// round, and answers left over from rounds given up on.
    func settle() -> AsyncPublishOutcome {
        state.withLock { s in
            var outcome = AsyncPublishOutcome()
            for id in s.published {
                if let sequence = s.stored.removeValue(forKey: id) { outcome.stored.append((id, sequence)) } else { outcome.missing += 1 }
            }
            s.published.removeAll(keepingCapacity: true)
            s.stored.removeAll()
            return outcome
        }
    }
}

/// What a wait for asynchronous publishes found.
public struct AsyncPublishOutcome: Sendable {
    /// Publishes of the round JetStream did not acknowledge (refused, timed out, or dropped).
    public var missing = 0
    /// The acknowledged ones: message id and stream sequence.
    public var stored: [(id: String, sequence: UInt64)] = []
}
