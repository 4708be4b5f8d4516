import Endpoints
import TriggerEngine

/// How one instance of a scale-out deployment joins its cluster (`serve --journal nats://…` or `kafka://…`).
public struct ClusterConfiguration: Sendable {
    /// The log the deployment runs on.
    public enum Transport: Sendable, Equatable {
        /// NATS JetStream: streams, key-value leases (`nats://`).
        case jetStream
        /// Kafka: topics, a consumer group (`kafka://`).
        case kafka
    }

    public var transport: Transport
    /// The JetStream servers (`nats://host:port` each) or the Kafka bootstrap brokers (`host:port` each).
    public var servers: [String]
    /// This instance's name in leases and logs; unique in the cluster.
    public var instance: String
    /// Partitions of the input stream (fixed for the life of the streams: devices are placed by `fnv1a32(device) % P`).
    public var partitions: Int
    /// Copies JetStream keeps of every stream and bucket (1, 3 or 5; at most the number of servers); with Kafka,
    /// the replication factor of the topics this instance creates.
    public var replicas: Int
    /// A partition whose owner stopped renewing its lease is taken over after this long (JetStream).
    public var leaseTTL: Duration
    /// Kafka: a member not heard from for this long leaves the group and its partitions are assigned again
    /// (`session.timeout.ms`; the broker bounds it, 6–300 s by default).
    public var sessionTimeout: Duration
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
                engine: TriggerEngine.Configuration, transport: Transport = .jetStream, sessionTimeout: Duration = .seconds(10)) {
        self.transport = transport
        self.sessionTimeout = sessionTimeout
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

    /// `nats://h1:4222,h2:4223` → the server list (`nats://HOST:PORT` each, 4222 where none is named); nil when
    /// `journal` is not a NATS address.
    public static func servers(fromJournal journal: String) -> [String]? {
        guard journal.hasPrefix("nats://"), let e = try? Endpoint(parsing: journal, schemes: ["nats"], defaultPort: { _ in 4222 }, multipleHosts: true),
              e.path?.isEmpty ?? true, e.query.isEmpty, e.user == nil else { return nil }
        return e.hosts.map { "nats://\($0)" }
    }

    /// `kafka://h1:9092,h2:9092` → the bootstrap brokers (`HOST:PORT` each, the port required: librdkafka would
    /// otherwise try the name as given, for ever); nil when `journal` is not a Kafka address.
    public static func brokers(fromJournal journal: String) -> [String]? {
        guard journal.hasPrefix("kafka://"), let e = try? Endpoint(parsing: journal, schemes: ["kafka"], multipleHosts: true),
              e.path?.isEmpty ?? true, e.query.isEmpty, e.user == nil else { return nil }
        return e.hosts.map(\.description)
    }
}
