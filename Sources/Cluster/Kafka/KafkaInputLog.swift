import BlockingCalls
import Kafka

/// `InputLog` over Kafka: the input topic, each device's inputs in the partition murmur2 of its id gives (where a
/// Java producer keying by device would put them), and the one-partition requests topic; an idempotent producer
/// with `acks=all`, each append answered once the brokers acknowledged every message. A batch's inputs for one
/// partition go as one message without a key: a message per device cost the brokers a message per fix of a
/// fleet that reports every few seconds.
struct KafkaInputLog: InputLog {
    let producer: KafkaProducer
    let names: ClusterNames
    let partitions: Int

    func placement(of device: String) -> (partition: Int, key: String?) { (KafkaPartitioner.partition(of: device, count: partitions), nil) }

    func append(_ messages: [LogAppend]) async throws(ClusterError) {
        let producer = self.producer, topic = names.inputTopic
        let out = messages.map { KafkaMessage(topic: topic, partition: $0.partition, key: $0.key.map { Array($0.utf8) }, value: $0.data) }
        do {
            _ = try await BlockingCalls.run { try producer.send(out) }
        } catch {
            throw .unavailable("Kafka did not store \(messages.count) input messages: \(error)")
        }
    }

    func appendRequest(_ data: [UInt8]) async throws(ClusterError) -> UInt64 {
        let producer = self.producer, topic = names.requestsTopic
        do {
            let offsets = try await BlockingCalls.run { try producer.send([KafkaMessage(topic: topic, partition: 0, key: nil, value: data)]) }
            return UInt64(offsets[0] + 1)
        } catch {
            throw .unavailable("Kafka did not store the request change: \(error)")
        }
    }

    var failureReason: String? {
        producer.brokersReachable ? nil : "no Kafka broker reachable (\(producer.brokers))"
    }
}
