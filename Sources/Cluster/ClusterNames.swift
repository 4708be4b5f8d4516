import NATS

/// The names of a deployment's streams, subjects and buckets, all under one prefix.
public struct ClusterNames: Sendable {
    public let prefix: String

    public init(prefix: String) { self.prefix = prefix }

    var token: String { prefix.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined() }

    /// Fixes and sightings, one stream and subject per partition (`<prefix>.input.<p>`): each stream has its own
    /// leader, so the writes of a deployment spread over the JetStream servers instead of all going to one.
    public func inputStream(_ partition: Int) -> String { "\(token)_INPUT_\(partition)" }
    public func inputSubject(_ partition: Int) -> String { "\(prefix).input.\(partition)" }
    /// Request changes, one subject, read completely by every instance.
    public var requestsStream: String { "\(token)_REQUESTS" }
    public var requestsSubject: String { "\(prefix).requests" }
    /// Fired notifications, one subject per partition, with `Nats-Msg-Id` = deliveryId.
    public var notificationsStream: String { "\(token)_NOTIFICATIONS" }
    public func notificationsSubject(_ partition: Int) -> String { "\(prefix).notifications.\(partition)" }
    public var notificationsWildcard: String { "\(prefix).notifications.*" }
    /// Partition checkpoints: chunks, then a head naming them.
    public var checkpointsStream: String { "\(token)_CHECKPOINTS" }
    public func checkpointData(_ partition: Int, _ token: String) -> String { "\(prefix).checkpoints.\(partition).data.\(token)" }
    public func checkpointHead(_ partition: Int) -> String { "\(prefix).checkpoints.\(partition).head" }
    /// Leases on partitions (`p<n>` → owner) and live instances (`<instance>` → heartbeat).
    public var leaseBucket: String { "\(token)_leases" }
    public var memberBucket: String { "\(token)_members" }
    /// `repeats: false` requests: which firing is the one (`<hex identifier>.<revision>` → deliveryId).
    public var onceBucket: String { "\(token)_once" }

    /// Creates (or updates) every stream. The notification stream's duplicate window must be longer than a
    /// takeover replays: a checkpoint interval plus the lease TTL, with a wide margin.
    public func ensureStreams(on connection: NATSConnection, partitions: Int, replicas: Int, duplicateWindow: Duration) throws(NATSError) {
        for p in 0..<partitions {
            try connection.ensureStream(StreamSettings(name: inputStream(p), subjects: [inputSubject(p)], replicas: replicas))
        }
        try connection.ensureStream(StreamSettings(name: requestsStream, subjects: [requestsSubject], replicas: replicas))
        try connection.ensureStream(StreamSettings(name: notificationsStream, subjects: [notificationsWildcard], replicas: replicas,
                                                   duplicateWindow: duplicateWindow))
        try connection.ensureStream(StreamSettings(name: checkpointsStream, subjects: ["\(prefix).checkpoints.>"], replicas: replicas))
    }
}
