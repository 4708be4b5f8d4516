import EngineLog
import Journal
import Kafka

/// SPEC §1's `repeats: false` across partitions in the Kafka path, without a compare-and-set: every firing appends
/// its claim (key → deliveryId) to the one-partition once topic, and the first claim of a key in the topic's order
/// is the one published. A replay appends its claim again and finds its own deliveryId first, so a takeover
/// changes nothing. Used by one partition owner's thread.
final class KafkaOnceClaims {
    private let producer: KafkaProducer
    private let names: ClusterNames
    private let brokers: String
    private let clientId: String
    private var reader: KafkaPartitionReader?
    /// The first claim of each key read so far.
    private var first: [String: [UInt8]] = [:]

    init(producer: KafkaProducer, names: ClusterNames, brokers: String, clientId: String) {
        self.producer = producer
        self.names = names
        self.brokers = brokers
        self.clientId = clientId
    }

    /// Whether `n` is the firing of its request to publish.
    func claim(_ n: RecordedNotification) throws -> Bool {
        let key = n.onceKey, id = Array(n.deliveryId.utf8)
        let offset = try producer.send([KafkaMessage(topic: names.onceTopic, partition: 0, key: Array(key.utf8), value: id)])[0]
        if reader == nil {
            reader = try KafkaPartitionReader(brokers: brokers, clientId: clientId, topic: names.onceTopic, partition: 0,
                                         from: KafkaPartitionReader.beginning)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while reader!.position <= offset {
            for r in try reader!.fetch(1024, timeout: .milliseconds(200)) {
                guard let k = r.key else { continue }
                let name = String(decoding: k, as: UTF8.self)
                if first[name] == nil { first[name] = r.value }
            }
            guard ContinuousClock.now < deadline else { throw ClusterError.unavailable("once topic not read up to \(offset) within 30 s") }
        }
        return first[key] == id
    }
}
