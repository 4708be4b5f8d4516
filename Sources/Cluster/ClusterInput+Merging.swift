import EngineLog

extension ClusterInput {
    /// Joins encoded input messages bound for one partition into as few messages as it can, in order: runs of
    /// fixes (or of sightings) with the same requests stamp become one message, up to `limit` bytes; anything else
    /// stays as it is. The joined message decodes to the items of the run in the same order, so evaluating it is
    /// evaluating the run. Returns each message with the range of inputs it carries.
    ///
    /// The layout joined (`encoded(using:)` over `HostRecord.journalRecord`): the stamp (8 bytes), the kind (1),
    /// the item count (4), the items (each self-contained), then the count of notifications the record carries (4),
    /// always 0 for an input message.
    static func merged(_ messages: [[UInt8]], limit: Int) -> [(data: [UInt8], inputs: Range<Int>)] {
        var out: [(data: [UInt8], inputs: Range<Int>)] = []
        var k = 0
        while k < messages.count {
            let first = messages[k]
            var end = k + 1
            if Self.isJoinable(first) {
                var size = first.count
                var count = Self.itemCount(first)
                while end < messages.count, Self.isJoinable(messages[end]), messages[end].prefix(9).elementsEqual(first.prefix(9)),
                      size + messages[end].count - 17 <= limit {
                    size += messages[end].count - 17
                    count += Self.itemCount(messages[end])
                    end += 1
                }
                if end > k + 1 {
                    var data = Array(first.prefix(9))
                    data.reserveCapacity(size)
                    withUnsafeBytes(of: count.littleEndian) { data.append(contentsOf: $0) }
                    for m in messages[k..<end] { data.append(contentsOf: m[13..<(m.count - 4)]) }
                    data.append(contentsOf: [0, 0, 0, 0])
                    out.append((data, k..<end))
                    k = end
                    continue
                }
            }
            out.append((first, k..<end))
            k = end
        }
        return out
    }

    /// A fixes or sightings message that carries no notifications.
    private static func isJoinable(_ m: [UInt8]) -> Bool {
        m.count >= 17 && HostRecord.isItemBatch(kind: m[8]) && m[(m.count - 4)...].allSatisfy { $0 == 0 }
    }

    private static func itemCount(_ m: [UInt8]) -> UInt32 {
        UInt32(m[9]) | UInt32(m[10]) << 8 | UInt32(m[11]) << 16 | UInt32(m[12]) << 24
    }
}
