import Journal
import NATS
import TriggerEngine

/// A partition's checkpoint in the checkpoint stream: the engine state in chunks on a subject of its own (a message
/// stays well under JetStream's payload limit), then a head naming that subject and the chunks' sequences, with the
/// input and requests sequences the state covers and a CRC-32C of the whole. The head is written last, so a
/// checkpoint is whole or absent.
///
/// Heads are fenced: a head is written only over the head its writer loaded or wrote last
/// (`Nats-Expected-Last-Subject-Sequence`), so of two owners for a while (one about to learn its lease is gone) only
/// one goes on checkpointing. Once a head is written, the one it replaced and that one's chunks are purged; a writer
/// fenced out purges its own chunks. (An owner killed between its chunks and its head leaves chunks no head names:
/// one checkpoint's worth, on a subject nobody reads.)
public struct JetStreamCheckpoint: Sendable, Equatable {
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

    /// Where a written checkpoint is: its head's sequence and its chunks' subject (what the next save replaces).
    public struct Location: Sendable, Equatable {
        public var head: UInt64
        public var dataSubject: String
    }

    static let magic: [UInt8] = Array("GTPC".utf8)
    static let version: UInt8 = 2
    static let chunkBytes = 512 << 10

    /// Writes the checkpoint of `partition` over `replacing` (nil: the partition has none yet); `.conflict` when
    /// another owner wrote a head since.
    @discardableResult
    public func save(partition: Int, names: ClusterNames, on connection: NATSConnection, replacing: Location?) throws(NATSError) -> Location {
        var token = UInt64.random(in: 1...UInt64.max)
        let dataSubject = names.checkpointData(partition, String(token, radix: 16))
        token = 0
        var chunks: [UInt64] = []
        var offset = 0
        repeat {
            let end = min(body.count, offset + Self.chunkBytes)
            chunks.append(try connection.publish(subject: dataSubject, data: Array(body[offset..<end])).sequence)
            offset = end
        } while offset < body.count
        var w = ByteWriter(capacity: 128 + 8 * chunks.count)
        for b in Self.magic { w.u8(b) }
        w.u8(Self.version)
        w.u64(inputSequence)
        w.u64(requestsSequence)
        w.u64(UInt64(body.count))
        w.u32(CRC32C.checksum(body))
        w.string(dataSubject)
        w.u32(UInt32(chunks.count))
        for c in chunks { w.u64(c) }
        let head: UInt64
        do {
            head = try connection.publish(subject: names.checkpointHead(partition), data: w.bytes,
                                          expectedLastSubjectSequence: replacing?.head ?? 0).sequence
        } catch {
            // `.conflict` when another owner wrote a head since.
            try? connection.purge(stream: names.checkpointsStream, subject: dataSubject, keep: 0)
            throw error
        }
        // What this one replaced is no longer needed; a failure here only leaves it behind.
        try? connection.purge(stream: names.checkpointsStream, subject: names.checkpointHead(partition), keep: 1)
        if let old = replacing?.dataSubject { try? connection.purge(stream: names.checkpointsStream, subject: old, keep: 0) }
        return Location(head: head, dataSubject: dataSubject)
    }

    /// The newest checkpoint of `partition` and where it is, nil when it has none; damage throws (a takeover must
    /// not start from a state it cannot trust).
    public static func load(partition: Int, names: ClusterNames, from connection: NATSConnection) throws -> (checkpoint: JetStreamCheckpoint, location: Location)? {
        guard let head = try connection.lastMessage(stream: names.checkpointsStream, subject: names.checkpointHead(partition)) else { return nil }
        var r = ByteReader(head.data)
        let what = "checkpoint head \(head.sequence) of partition \(partition)"
        for b in magic { guard try r.u8() == b else { throw ClusterError.invalid("\(what): not a checkpoint head") } }
        guard try r.u8() == version else { throw ClusterError.invalid("\(what): unknown version") }
        let input = try r.u64(), requests = try r.u64(), size = Int(try r.u64()), crc = try r.u32()
        let dataSubject = try r.string()
        let count = Int(try r.u32())
        var body: [UInt8] = []
        body.reserveCapacity(size)
        for _ in 0..<count {
            let chunk = try r.u64()
            body += try connection.message(stream: names.checkpointsStream, sequence: chunk).data
        }
        guard body.count == size else { throw ClusterError.invalid("\(what): \(body.count) bytes in its chunks, \(size) expected") }
        guard CRC32C.checksum(body) == crc else { throw ClusterError.invalid("\(what): CRC-32C mismatch") }
        return (JetStreamCheckpoint(inputSequence: input, requestsSequence: requests, body: body), Location(head: head.sequence, dataSubject: dataSubject))
    }
}
