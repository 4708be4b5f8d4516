import TriggerEngine

/// How one instance of a scale-out deployment joins its cluster (`serve --journal nats://…`).
public struct ClusterConfiguration: Sendable {
    /// The JetStream servers, `nats://host:port` each.
    public var servers: [String]
    /// This instance's name in leases and logs; unique in the cluster.
    public var instance: String
    /// Partitions of the input stream (fixed for the life of the streams: devices are placed by `fnv1a32(device) % P`).
    public var partitions: Int
    /// Copies JetStream keeps of every stream and bucket (1, 3 or 5; at most the number of servers).
    public var replicas: Int
    /// A partition whose owner stopped renewing its lease is taken over after this long.
    public var leaseTTL: Duration
    /// How often a partition's owner writes its checkpoint (and so how much a takeover replays).
    public var checkpointInterval: Duration
    /// Prefix of every stream, subject and bucket name: several deployments can share a cluster.
    public var prefix: String
    /// Wall-clock time (`--clock wall`): each owner writes the time into its partitions every second, so deadlines of
    /// silent devices fire on time, and a takeover replays the same clock steps.
    public var wallClock: Bool
    public var engine: TriggerEngine.Configuration

    public init(servers: [String], instance: String, partitions: Int = 12, replicas: Int = 3, leaseTTL: Duration = .seconds(6),
                checkpointInterval: Duration = .seconds(5), prefix: String = "geotrigger", wallClock: Bool = false,
                engine: TriggerEngine.Configuration) {
        self.servers = servers
        self.instance = instance
        self.partitions = partitions
        self.replicas = replicas
        self.leaseTTL = leaseTTL
        self.checkpointInterval = checkpointInterval
        self.prefix = prefix
        self.wallClock = wallClock
        self.engine = engine
    }

    /// `nats://h1:4222,h2:4223` → the server list; nil when `journal` is not a NATS address.
    public static func servers(fromJournal journal: String) -> [String]? {
        guard journal.hasPrefix("nats://") else { return nil }
        let hosts = journal.dropFirst("nats://".count).split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        guard !hosts.isEmpty, !hosts.contains(where: \.isEmpty) else { return nil }
        return hosts.map { $0.hasPrefix("nats://") ? $0 : "nats://\($0)" }
    }
}
