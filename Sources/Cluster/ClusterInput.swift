import EngineLog
import Journal
import TriggerEngine

/// A message of the input stream: the requests-stream sequence the accepting instance had seen (the partition's
/// owner applies request changes up to it before this input, so a request added before a batch was accepted applies
/// to that batch wherever it is evaluated, and a replay applies them at the same place), then the input as the
/// embedded journal codes it.
public struct ClusterInput: Sendable, Equatable {
    public var requestsSequence: UInt64
    public var input: HostInput

    public init(requestsSequence: UInt64, input: HostInput) {
        self.requestsSequence = requestsSequence
        self.input = input
    }

    public func encoded(using w: inout ByteWriter) -> [UInt8] {
        let record = HostRecord(input: input).journalRecord(using: &w)
        var out: [UInt8] = []
        out.reserveCapacity(9 + record.payload.count)
        withUnsafeBytes(of: requestsSequence.littleEndian) { out.append(contentsOf: $0) }
        out.append(record.kind)
        out.append(contentsOf: record.payload)
        return out
    }

    public init(decoding bytes: [UInt8], sequence: UInt64) throws(HostRecordError) {
        guard bytes.count >= 9 else { throw HostRecordError(position: sequence, reason: "input message of \(bytes.count) bytes: shorter than its header") }
        var s: UInt64 = 0
        for k in 0..<8 { s |= UInt64(bytes[k]) << (8 * UInt64(k)) }
        requestsSequence = s
        input = try HostRecord(JournalRecord(kind: bytes[8], payload: Array(bytes[9...])), position: sequence).input
    }
}
