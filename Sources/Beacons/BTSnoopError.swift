import SystemErrors
/// Why a btsnoop file could not be read or written, with the record number and byte offset where it applies.
public enum BTSnoopError: Error, Equatable, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)
    case io(operation: String, errno: Int32)
    /// The file ends inside the 16-byte file header.
    case truncatedHeader(available: Int)
    case notBTSnoop
    case unsupportedVersion(UInt32)
    case unsupportedDatalink(UInt32)
    /// The file ends inside record `record` (1-based) that starts at `offset`.
    case truncatedRecord(record: Int, offset: Int, needed: Int, available: Int)
    /// The record's included length is larger than its original length or the reader's limit.
    case badRecordLength(record: Int, offset: Int, included: UInt32, original: UInt32)
    /// Writing: the data is larger than a record can hold, or the writer was closed.
    case recordTooLong(Int)
    case closed

    public var description: String {
        switch self {
        case let .cannotOpen(path, e): return "cannot open \(path): \(SystemError.numbered(e))"
        case let .io(op, e): return "btsnoop \(op) failed: \(SystemError.numbered(e))"
        case .truncatedHeader(let n): return "not a btsnoop file: only \(n) bytes, the header needs 16"
        case .notBTSnoop: return "not a btsnoop file: the first 8 bytes are not \"btsnoop\\0\""
        case .unsupportedVersion(let v): return "unsupported btsnoop version \(v) (only version 1 exists)"
        case .unsupportedDatalink(let d):
            return "unsupported btsnoop datalink \(d) (supported: 1001 H1, 1002 H4, 2001 Linux monitor)"
        case let .truncatedRecord(record, offset, needed, available):
            return "record \(record) at byte \(offset) is truncated: needs \(needed) bytes, the file has \(available)"
        case let .badRecordLength(record, offset, included, original):
            return "record \(record) at byte \(offset): included length \(included) is invalid (original length \(original), limit \(BTSnoopReader.maximumRecordLength))"
        case .recordTooLong(let n): return "a btsnoop record cannot hold \(n) bytes"
        case .closed: return "the btsnoop writer is closed"
        }
    }
}
