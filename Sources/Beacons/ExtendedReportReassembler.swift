/// Joins the fragments of LE Extended Advertising Reports into whole advertisements.
///
/// A controller splits an advertisement longer than one report can carry (229 bytes) over several reports with
/// Data_Status "incomplete, more to come", from the same address and advertising set (SID), in consecutive events;
/// the last says "complete" or, when the controller gave up, "incomplete, truncated" (Core spec Vol 4 Part E
/// §7.7.65.13). One chain is joined at a time, like Zephyr's host (`bt_hci_le_adv_ext_report`): a complete report
/// from another advertiser passes through without disturbing it; a fragment from another advertiser means the
/// chain was cut off, so it is dropped and counted as abandoned. A truncated advertisement is handed out with what
/// arrived (a beacon's identity is in its first bytes) and marked.
///
/// The buffer is allocated once, at the largest advertisement the specification allows; joining allocates nothing.
public struct ExtendedReportReassembler: Sendable {
    /// The most advertising data one advertisement can carry: 1650 bytes, the ceiling of LE Read Maximum Advertising
    /// Data Length (Core spec Vol 4 Part E §7.8.57, 0x0672).
    public static let maximumAdvertisementLength = 1650

    /// What `add` hands out: an advertisement to decode.
    public struct Advertisement: Sendable {
        /// The last report of the advertisement, with `data` the whole advertisement's data (sharing storage with
        /// the event when it came in one report, with the reassembler's buffer otherwise: use it before the next
        /// `add`). Its RSSI is the last fragment's, as the specification says the controller reports it.
        public var report: HCIAdvertisingReport
        /// How many reports it was joined from (1: not fragmented).
        public var fragments: Int
        /// The controller said the data is truncated, or it outgrew `maximumAdvertisementLength`.
        public var truncated: Bool
    }

    private struct ChainKey: Equatable {
        var address: BluetoothAddress
        var addressType: UInt8
        var sid: UInt8
        /// Event_Type without the data-status bits, which change from fragment to fragment.
        var properties: UInt16
    }

    private var buffer: [UInt8]
    private var length = 0
    private var key: ChainKey?
    private var fragments = 0
    private var overflowed = false
    /// Chains dropped unfinished (cut off by another advertiser's fragment, or by `abandonPending`).
    public private(set) var abandoned = 0

    public init() {
        buffer = [UInt8](repeating: 0, count: Self.maximumAdvertisementLength)
    }

    /// Whether fragments are waiting for the rest of their advertisement.
    public var isPending: Bool { key != nil }

    /// One report, in the order the controller sent it: the advertisement it completes, or nil while fragments wait
    /// for the rest (or when a fragment could not be used).
    public mutating func add(_ report: HCIAdvertisingReport) -> Advertisement? {
        let status = report.dataStatus
        // Legacy reports (and legacy PDUs in extended reports) are complete by definition.
        guard report.format == .extended, report.eventType & HCIAdvertisingReport.legacyPDUBit == 0 else {
            return Advertisement(report: report, fragments: 1, truncated: false)
        }
        let k = ChainKey(address: report.address, addressType: report.addressType, sid: report.sid,
                         properties: report.eventType & ~HCIAdvertisingReport.dataStatusMask)
        if key != k {
            switch status {
            case .complete:
                // Another advertiser's whole advertisement: it passes through; a pending chain keeps waiting.
                return Advertisement(report: report, fragments: 1, truncated: false)
            case .incompleteTruncated, .reserved:
                if key != nil { abandonPending() }
                return Advertisement(report: report, fragments: 1, truncated: true)
            case .incompleteMoreToCome:
                if key != nil { abandonPending() }
                key = k
            }
        }
        append(report.data)
        fragments += 1
        guard status != .incompleteMoreToCome else { return nil }
        var joined = report
        joined.data = buffer[0..<length]
        let out = Advertisement(report: joined, fragments: fragments, truncated: status != .complete || overflowed)
        reset()
        return out
    }

    /// Drops a chain still waiting for its last fragment (the input ended), counting it as abandoned.
    public mutating func abandonPending() {
        guard key != nil else { return }
        abandoned += 1
        reset()
    }

    private mutating func append(_ data: ArraySlice<UInt8>) {
        let n = min(data.count, buffer.count - length)
        if n < data.count { overflowed = true }
        guard n > 0 else { return }
        let at = length
        buffer.withUnsafeMutableBufferPointer { dst in
            data.withUnsafeBufferPointer { src in (dst.baseAddress! + at).update(from: src.baseAddress!, count: n) }
        }
        length += n
    }

    private mutating func reset() {
        key = nil
        length = 0
        fragments = 0
        overflowed = false
    }
}
