/// A message to produce: to `partition`, or with nil to the partition the murmur2 partitioner gives its key; with
/// headers (a notification's deliveryId and the input offset that fired it). A nil value is a tombstone: a
/// compacted topic drops the key's earlier messages.
public struct KafkaMessage: Sendable {
    public var topic: String
    public var partition: Int?
    public var key: [UInt8]?
    public var value: [UInt8]?
    public var headers: [(name: String, value: [UInt8])]

    public init(topic: String, partition: Int? = nil, key: [UInt8]?, value: [UInt8]?, headers: [(name: String, value: [UInt8])] = []) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
    }
}
