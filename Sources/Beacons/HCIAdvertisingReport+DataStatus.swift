/// What an extended report says about its own completeness (Core spec Vol 4 Part E §7.7.65.13, Event_Type bits 5–6),
/// and the legacy quirk of data longer than the specification allows.
extension HCIAdvertisingReport {
    public enum DataStatus: UInt8, Sendable {
        /// The whole advertisement (or the last fragment of one).
        case complete = 0
        /// A fragment: more of the same advertisement follows in the next report from this address and SID.
        case incompleteMoreToCome = 1
        /// The controller gave up: this is the last data of an advertisement it could not receive in full.
        case incompleteTruncated = 2
        /// The reserved value 0b11: treated like truncated (the data is what arrived, nothing more will).
        case reserved = 3
    }

    /// Extended Event_Type bit 4: a legacy PDU reported through the extended event; always complete.
    static let legacyPDUBit: UInt16 = 1 << 4
    static let dataStatusMask: UInt16 = 0b11 << 5

    /// Legacy reports are always complete; extended ones say so in Event_Type bits 5–6.
    public var dataStatus: DataStatus {
        guard format == .extended, eventType & Self.legacyPDUBit == 0 else { return .complete }
        return DataStatus(rawValue: UInt8(truncatingIfNeeded: (eventType & Self.dataStatusMask) >> 5)) ?? .reserved
    }

    /// A legacy report with more than the specification's 31 bytes of data. Linux (`hci_le_adv_report_evt`) accepts
    /// up to 251 from controllers that support extended advertising, and such controllers send them; decoded, and
    /// counted by the scan pipeline as a quirk.
    public var isOversizedLegacy: Bool {
        format == .legacy && data.count > HCIEventParser.maximumLegacyDataLength
    }
}
