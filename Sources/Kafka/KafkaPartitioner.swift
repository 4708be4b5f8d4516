import CKafka

/// Where a keyed message goes: the Java client's default partitioner, `toPositive(murmur2(key)) % partitions`
/// (murmur2 with seed 0x9747b28c), which librdkafka's `murmur2_random` partitioner also computes. GeoTrigger and
/// any Java (or librdkafka) producer put a device's inputs in the same partition.
public enum KafkaPartitioner {
    /// Kafka's `Utils.murmur2`: the same 32 bits as Java's signed int.
    public static func murmur2(_ data: [UInt8]) -> Int32 {
        let m: UInt32 = 0x5bd1_e995
        let length = data.count
        var h: UInt32 = 0x9747_b28c ^ UInt32(truncatingIfNeeded: length)
        var i = 0
        while i + 4 <= length {
            var k = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
            k = k &* m
            k ^= k >> 24
            k = k &* m
            h = h &* m
            h ^= k
            i += 4
        }
        let rest = length & 3
        if rest == 3 { h ^= UInt32(data[i + 2]) << 16 }
        if rest >= 2 { h ^= UInt32(data[i + 1]) << 8 }
        if rest >= 1 {
            h ^= UInt32(data[i])
            h = h &* m
        }
        h ^= h >> 13
        h = h &* m
        h ^= h >> 15
        return Int32(bitPattern: h)
    }

    /// The partition of `key` among `partitions` (Java: `Utils.toPositive(Utils.murmur2(key)) % partitions`).
    public static func partition(of key: [UInt8], count partitions: Int) -> Int {
        Int(UInt32(bitPattern: murmur2(key)) & 0x7fff_ffff) % partitions
    }

    public static func partition(of key: String, count partitions: Int) -> Int { partition(of: Array(key.utf8), count: partitions) }

    /// librdkafka's own murmur2 partitioner for `key`, to check this one against.
    public static func librdkafkaPartition(of key: [UInt8], count partitions: Int) -> Int {
        Int(key.withUnsafeBytes { rd_kafka_msg_partitioner_murmur2(nil, $0.baseAddress, $0.count, Int32(partitions), nil, nil) })
    }
}
