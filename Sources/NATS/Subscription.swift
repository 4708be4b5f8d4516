import CNATS

/// A core NATS subscription read synchronously (no JetStream): what a subject mapping does to published subjects.
public final class Subscription: @unchecked Sendable {
    private let subscription: OpaquePointer

    public init(connection: NATSConnection, subject: String) throws(NATSError) {
        var sub: OpaquePointer?
        try check("subscribe to \(subject)", natsConnection_SubscribeSync(&sub, connection.connection, subject))
        try check("flush", natsConnection_Flush(connection.connection))
        subscription = sub!
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
    }

    /// The next message's subject and bytes, or nil when none came within `timeout`.
    public func next(timeout: Duration) throws(NATSError) -> (subject: String, data: [UInt8])? {
        var msg: OpaquePointer?
        let status = natsSubscription_NextMsg(&msg, subscription, timeout.milliseconds)
        if status == NATS_TIMEOUT { return nil }
        try check("next message", status)
        defer { natsMsg_Destroy(msg) }
        let m = NATSConnection.stored(msg!, sequence: 0)
        return (m.subject, m.data)
    }
}
