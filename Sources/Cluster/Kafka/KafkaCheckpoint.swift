import Journal
import Kafka
import TriggerEngine

/// A partition's checkpoint in the Kafka path: partition p's checkpoints live in partition p of the (compacted)
/// checkpoints topic, as chunks keyed `chunk.<token>.<n>` (each well under a broker's message size limit), then a
/// head keyed `head` naming the token, with the input offset the state covers, the requests sequence, the
/// notifications offset, and a CRC-32C of the whole body (the embedded host's checkpoint format). The head is
/// written once every chunk is acknowledged, so a checkpoint is whole or absent; the replaced one's chunks are then
/// deleted (tombstones), and compaction keeps only the newest head.
///
/// Unlike JetStream's, Kafka's heads are not fenced (Kafka has no compare-and-set): one owner per partition is the
/// consumer group's promise, and an owner stops writing as soon as it hears its partitions were revoked or lost.
public struct KafkaCheckpoint: Sendable, Equatable {
    /// The state covers every input before this offset of the partition (the next one to read).
    public var inputOffset: Int64
    /// … and every request change up to this sequence.
    public var requestsSequence: UInt64
    /// Every notification the inputs from `inputOffset` on fire is at or after this offset of the partition's
    /// notifications: a takeover reads from here what the last owner already published.
    public var notificationsOffset: Int64
    public var body: [UInt8]

    /// What the next save deletes: the token and chunk count of the checkpoint written or loaded last.
    public struct Location: Sendable, Equatable {
        public var token: String
        public var chunks: Int
    }

    public init(inputOffset: Int64, requestsSequence: UInt64, notificationsOffset: Int64, body: [UInt8]) {
        self.inputOffset = inputOffset
        self.requestsSequence = requestsSequence
        self.notificationsOffset = notificationsOffset
        self.body = body
    }

    static let magic: [UInt8] = Array("GTKC".utf8)
    static let version: UInt8 = 1
    static let chunkBytes = 512 << 10

    /// Writes the checkpoint; returns where it is.
    public func save(partition: Int, names: ClusterNames, producer: KafkaProducer, replacing: Location?) throws -> Location {
        let token = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        var chunks: [KafkaMessage] = []
        var offset = 0
        repeat {
            let end = min(body.count, offset + Self.chunkBytes)
            chunks.append(KafkaMessage(topic: names.checkpointsTopic, partition: partition, key: Array("chunk.\(token).\(chunks.count)".utf8),
                                       value: Array(body[offset..<end])))
            offset = end
        } while offset < body.count
        try producer.send(chunks)
        var w = ByteWriter(capacity: 128)
        for b in Self.magic { w.u8(b) }
        w.u8(Self.version)
        w.i64(inputOffset)
        w.u64(requestsSequence)
        w.i64(notificationsOffset)
        w.u64(UInt64(body.count))
        w.u32(CRC32C.checksum(body))
        w.string(token)
        w.u32(UInt32(chunks.count))
        try producer.send([KafkaMessage(topic: names.checkpointsTopic, partition: partition, key: Array("head".utf8), value: w.bytes)])
        if let old = replacing {
            // What this one replaced is no longer needed; a failure here only leaves it behind.
            let tombstones = (0..<old.chunks).map {
                KafkaMessage(topic: names.checkpointsTopic, partition: partition, key: Array("chunk.\(old.token).\($0)".utf8), value: nil)
            }
            _ = try? producer.send(tombstones)
        }
        return Location(token: token, chunks: chunks.count)
    }

    /// The newest checkpoint of `partition` and where it is; nil when it has none. Damage throws (a takeover must
    /// not start from a state it cannot trust).
    public static func load(partition: Int, names: ClusterNames, brokers: String, clientId: String) throws -> (checkpoint: KafkaCheckpoint, location: Location)? {
        let reader = try KafkaPartitionReader(brokers: brokers, clientId: clientId, topic: names.checkpointsTopic, partition: partition,
                                              from: KafkaPartitionReader.beginning)
        var chunks: [String: [Int: [UInt8]]] = [:]
        var newest: (head: [UInt8], offset: Int64, chunks: [Int: [UInt8]])?
        for record in try reader.readToEnd() {
            let key = String(decoding: record.key ?? [], as: UTF8.self)
            if key == "head" {
                let token = try Self.token(of: record.value, what: "checkpoint head at \(record.offset) of partition \(partition)")
                newest = (record.value, record.offset, chunks.removeValue(forKey: token) ?? [:])
            } else if key.hasPrefix("chunk.") {
                let parts = key.split(separator: ".")
                guard parts.count == 3, let n = Int(parts[2]) else { continue }
                // A tombstone (no value) deletes the chunk.
                if record.value.isEmpty { chunks[String(parts[1])]?[n] = nil } else { chunks[String(parts[1]), default: [:]][n] = record.value }
            }
        }
        guard let newest else { return nil }
        return try decode(newest.head, chunks: newest.chunks, what: "checkpoint head at \(newest.offset) of partition \(partition)")
    }

    private static func token(of head: [UInt8], what: String) throws -> String {
        var r = ByteReader(head)
        for b in magic { guard try r.u8() == b else { throw ClusterError.invalid("\(what): not a checkpoint head") } }
        guard try r.u8() == version else { throw ClusterError.invalid("\(what): unknown version") }
        _ = try r.i64(); _ = try r.u64(); _ = try r.i64(); _ = try r.u64(); _ = try r.u32()
        return try r.string()
    }

    private static func decode(_ head: [UInt8], chunks: [Int: [UInt8]], what: String) throws -> (checkpoint: KafkaCheckpoint, location: Location) {
        var r = ByteReader(head)
        for _ in 0...magic.count { _ = try r.u8() }
        let input = try r.i64(), requests = try r.u64(), notifications = try r.i64()
        let size = Int(try r.u64()), crc = try r.u32()
        let token = try r.string()
        let count = Int(try r.u32())
        var body: [UInt8] = []
        body.reserveCapacity(size)
        for n in 0..<count {
            guard let chunk = chunks[n] else { throw ClusterError.invalid("\(what): chunk \(n) of \(count) missing") }
            body += chunk
        }
        guard body.count == size else { throw ClusterError.invalid("\(what): \(body.count) bytes in its chunks, \(size) expected") }
        guard CRC32C.checksum(body) == crc else { throw ClusterError.invalid("\(what): CRC-32C mismatch") }
        return (KafkaCheckpoint(inputOffset: input, requestsSequence: requests, notificationsOffset: notifications, body: body),
                Location(token: token, chunks: count))
    }
}
