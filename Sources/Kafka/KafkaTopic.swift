/// A topic to create: its partitions, replication factor and topic-level settings (`cleanup.policy`, …).
public struct KafkaTopic: Sendable, Equatable {
    public var name: String
    public var partitions: Int
    public var replicationFactor: Int
    public var config: [String: String]

    public init(name: String, partitions: Int, replicationFactor: Int = 1, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}
