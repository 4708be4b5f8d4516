/// Why an HCI event could not be parsed, and where: `offset` is the byte offset in the bytes handed to the parser.
public struct HCIEventError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// The packet's first byte is not the H4 event indicator 0x04.
        case notAnEventPacket(packetType: UInt8)
        /// Fewer bytes than the event header (code + parameter length) or the LE Meta subevent byte.
        case tooShort(needed: Int, available: Int)
        /// The parameter-length byte disagrees with the bytes that follow it.
        case parameterLengthMismatch(declared: Int, actual: Int)
        /// Num_Reports out of the range the specification allows for this subevent.
        case badReportCount(Int)
        /// Report `index` (0-based) needs more bytes than the event has left.
        case truncatedReport(index: Int, needed: Int, available: Int)
        /// Report `index` declares more advertising data than the subevent allows.
        case dataTooLong(index: Int, length: Int, maximum: Int)
        /// Bytes left over after the last report.
        case trailingBytes(Int)
    }

    public var reason: Reason
    public var offset: Int

    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .notAnEventPacket(let t): what = "not an HCI event packet (packet type 0x\(String(t, radix: 16)), expected 0x04)"
        case let .tooShort(needed, available): what = "event too short: needs \(needed) bytes, has \(available)"
        case let .parameterLengthMismatch(declared, actual):
            what = "parameter length byte says \(declared) but \(actual) parameter bytes follow"
        case .badReportCount(let n): what = "invalid number of reports \(n)"
        case let .truncatedReport(index, needed, available):
            what = "report \(index) truncated: needs \(needed) bytes, \(available) left"
        case let .dataTooLong(index, length, maximum):
            what = "report \(index) data length \(length) exceeds the maximum \(maximum)"
        case .trailingBytes(let n): what = "\(n) unexpected bytes after the last report"
        }
        return "HCI event at byte \(offset): \(what)"
    }
}
