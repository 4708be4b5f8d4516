import Journal
import NATS
import TriggerEngine

/// A partition's checkpoint in the checkpoint stream: the engine state in chunks (a message stays well under
/// JetStream's payload limit), then a head naming the chunks with the input and requests sequences the state
/// covers and a CRC-32C of the whole. The head is written last, so a checkpoint is whole or absent: an owner
/// killed while writing leaves chunks nobody names, purged with the next checkpoint.
public struct PartitionCheckpoint: Sendable, Equatable {
    /// The state covers every input message up to and including this sequence of the input stream.
    public var inputSequence: UInt64
    /// … and every request change up to this sequence of the requests stream.
    public var requestsSequence: UInt64
    public var body: [UInt8]

    public init(inputSequence: UInt64, requestsSequence: UInt64, body: [UInt8]) {
        self.inputSequence = inputSequence
        self.requestsSequence = requestsSequence
        self.body = body
    }

    static let magic: [UInt8] = Array("GTPC".utf8)
    static let version: UInt8 = 1
    static let chunkBytes = 512 << 10

    /// Writes the checkpoint of `partition`, then purges the chunks of the ones before it.
    public func save(partition: Int, names: ClusterNames, on connection: NATSConnection) throws(NATSError) {
        var chunks: [UInt64] = []
        var offset = 0
        repeat {
            let end = min(body.count, offset + Self.chunkBytes)
            let sequence = try connection.publish(subject: names.checkpointData(partition), data: Array(body[offset..<end])).sequence
            chunks.append(sequence)
            offset = end
        } while offset < body.count
        var w = ByteWriter(capacity: 64 + 8 * chunks.count)
        for b in Self.magic { w.u8(b) }
        w.u8(Self.version)
        w.u64(inputSequence)
        w.u64(requestsSequence)
        w.u64(UInt64(body.count))
        w.u32(CRC32C.checksum(body))
        w.u32(UInt32(chunks.count))
        for c in chunks { w.u64(c) }
        try connection.publish(subject: names.checkpointHead(partition), data: w.bytes)
        // Older heads and chunks are no longer needed; a failure here only leaves them for the next checkpoint.
        // By count, not by sequence: a purge of this subject below the new head's sequence made the new checkpoint's
        // first chunk unreadable here (nats-server 2.9.10; ClusterPrimitivesTests caught it).
        try? connection.purge(stream: names.checkpointsStream, subject: names.checkpointHead(partition), keep: 1)
        try? connection.purge(stream: names.checkpointsStream, subject: names.checkpointData(partition), keep: UInt64(chunks.count))
    }

    /// The newest checkpoint of `partition`, nil when it has none; damage throws (a takeover must not start from a
    /// state it cannot trust).
    public static func load(partition: Int, names: ClusterNames, from connection: NATSConnection) throws -> PartitionCheckpoint? {
        guard let head = try connection.lastMessage(stream: names.checkpointsStream, subject: names.checkpointHead(partition)) else { return nil }
        var r = ByteReader(head.data)
        let what = "checkpoint head \(head.sequence) of partition \(partition)"
        for b in magic { guard try r.u8() == b else { throw ClusterError.invalid("\(what): not a checkpoint head") } }
        guard try r.u8() == version else { throw ClusterError.invalid("\(what): unknown version") }
        let input = try r.u64(), requests = try r.u64(), size = Int(try r.u64()), crc = try r.u32(), count = Int(try r.u32())
        var body: [UInt8] = []
        body.reserveCapacity(size)
        for _ in 0..<count {
            let chunk = try r.u64()
            body += try connection.message(stream: names.checkpointsStream, sequence: chunk).data
        }
        guard body.count == size else { throw ClusterError.invalid("\(what): \(body.count) bytes in its chunks, \(size) expected") }
        guard CRC32C.checksum(body) == crc else { throw ClusterError.invalid("\(what): CRC-32C mismatch") }
        return PartitionCheckpoint(inputSequence: input, requestsSequence: requests, body: body)
    }
}
