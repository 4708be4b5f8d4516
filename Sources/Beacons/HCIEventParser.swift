/// Parses HCI LE Meta events into advertising reports, bounds-checking every length byte against the bytes present.
///
/// Strict on framing: the parameter-length byte must match the bytes that follow, each report must fit, and no bytes
/// may be left over. Tolerant of what the bytes say inside that frame: a legacy report longer than the specification's
/// 31 bytes is returned (see `HCIAdvertisingReport.isOversizedLegacy`), and an extended report's fragments are
/// returned one by one with their `dataStatus` (`ExtendedReportReassembler` joins them). Events that are well-formed but not advertising reports give an empty array, not an error.
/// Multiple reports in one event are read one after another (event type, address type, address, length, data,
/// RSSI per report), the layout the Linux kernel (`hci_le_adv_report_evt`) and btmon parse.
public enum HCIEventParser {
    public static let eventPacketIndicator: UInt8 = 0x04
    public static let leMetaEvent: UInt8 = 0x3E
    public static let leAdvertisingReport: UInt8 = 0x02
    public static let leExtendedAdvertisingReport: UInt8 = 0x0D
    /// Legacy advertising and scan-response data is at most 31 bytes (Core spec Vol 4 Part E §7.7.65.2); longer
    /// reports are accepted and counted as a quirk, not rejected.
    public static let maximumLegacyDataLength = 31
    /// An extended report carries at most 229 bytes of data (parameter length 255 − 2 − 24).
    public static let maximumExtendedDataLength = 229

    /// Bytes as `read()` returns them from a raw HCI socket or as an H4 btsnoop record holds them: the packet-type
    /// byte 0x04 first.
    public static func advertisingReports(inPacket packet: ArraySlice<UInt8>) throws(HCIEventError) -> [HCIAdvertisingReport] {
        guard let type = packet.first else { throw HCIEventError(.tooShort(needed: 1, available: 0), offset: 0) }
        guard type == eventPacketIndicator else { throw HCIEventError(.notAnEventPacket(packetType: type), offset: 0) }
        do {
            return try advertisingReports(inEvent: packet.dropFirst())
        } catch {
            throw HCIEventError(error.reason, offset: error.offset + 1)
        }
    }

    public static func advertisingReports(inPacket packet: [UInt8]) throws(HCIEventError) -> [HCIAdvertisingReport] {
        try advertisingReports(inPacket: packet[...])
    }

    /// Bytes from the event code on, as a btsnoop monitor (2001) record holds an event.
    public static func advertisingReports(inEvent event: ArraySlice<UInt8>) throws(HCIEventError) -> [HCIAdvertisingReport] {
        let base = event.startIndex
        guard event.count >= 2 else { throw HCIEventError(.tooShort(needed: 2, available: event.count), offset: 0) }
        let code = event[base]
        let declared = Int(event[base + 1])
        let actual = event.count - 2
        guard declared == actual else {
            throw HCIEventError(.parameterLengthMismatch(declared: declared, actual: actual), offset: 1)
        }
        guard code == leMetaEvent else { return [] }
        guard actual >= 1 else { throw HCIEventError(.tooShort(needed: 3, available: event.count), offset: 2) }
        let params = event[(base + 2)...]
        switch params[params.startIndex] {
        case leAdvertisingReport: return try legacyReports(params, base: base)
        case leExtendedAdvertisingReport: return try extendedReports(params, base: base)
        default: return []
        }
    }

    public static func advertisingReports(inEvent event: [UInt8]) throws(HCIEventError) -> [HCIAdvertisingReport] {
        try advertisingReports(inEvent: event[...])
    }

    /// `p` starts at the subevent byte; offsets in errors are relative to `base`, the event code.
    private static func legacyReports(_ p: ArraySlice<UInt8>, base: Int) throws(HCIEventError) -> [HCIAdvertisingReport] {
        var i = p.startIndex + 1
        guard i < p.endIndex else { throw HCIEventError(.tooShort(needed: 4, available: p.count + 2), offset: i - base) }
        let count = Int(p[i])
        guard (1...25).contains(count) else { throw HCIEventError(.badReportCount(count), offset: i - base) }
        i += 1
        var reports: [HCIAdvertisingReport] = []
        reports.reserveCapacity(count)
        for index in 0..<count {
            // event type, address type, address (6), data length
            guard p.endIndex - i >= 9 else {
                throw HCIEventError(.truncatedReport(index: index, needed: 9, available: p.endIndex - i), offset: i - base)
            }
            // No 31-byte limit here: longer legacy data is a quirk real controllers have (`isOversizedLegacy`),
            // decoded like any other while it fits the event.
            let length = Int(p[i + 8])
            guard p.endIndex - i >= 9 + length + 1 else {
                throw HCIEventError(.truncatedReport(index: index, needed: 9 + length + 1, available: p.endIndex - i),
                                    offset: i - base)
            }
            // Six bytes by construction, so the initializer cannot fail.
            let address = BluetoothAddress(littleEndianBytes: p[(i + 2)..<(i + 8)]) ?? BluetoothAddress(value: 0)
            let dataStart = i + 9
            reports.append(HCIAdvertisingReport(
                format: .legacy, eventType: UInt16(p[i]), addressType: p[i + 1], address: address,
                rssi: HCIAdvertisingReport.optionalPower(p[dataStart + length]),
                data: p[dataStart..<(dataStart + length)]))
            i = dataStart + length + 1
        }
        guard i == p.endIndex else { throw HCIEventError(.trailingBytes(p.endIndex - i), offset: i - base) }
        return reports
    }

    /// LE Extended Advertising Report: per report event type (2, LE), address type, address (6), primary PHY,
    /// secondary PHY, SID, TX power, RSSI, periodic interval (2), direct address type, direct address (6), data
    /// length, data.
    private static func extendedReports(_ p: ArraySlice<UInt8>, base: Int) throws(HCIEventError) -> [HCIAdvertisingReport] {
        var i = p.startIndex + 1
        guard i < p.endIndex else { throw HCIEventError(.tooShort(needed: 4, available: p.count + 2), offset: i - base) }
        let count = Int(p[i])
        guard (1...10).contains(count) else { throw HCIEventError(.badReportCount(count), offset: i - base) }
        i += 1
        var reports: [HCIAdvertisingReport] = []
        reports.reserveCapacity(count)
        for index in 0..<count {
            guard p.endIndex - i >= 24 else {
                throw HCIEventError(.truncatedReport(index: index, needed: 24, available: p.endIndex - i), offset: i - base)
            }
            let length = Int(p[i + 23])
            guard length <= maximumExtendedDataLength else {
                throw HCIEventError(.dataTooLong(index: index, length: length, maximum: maximumExtendedDataLength),
                                    offset: i + 23 - base)
            }
            guard p.endIndex - i >= 24 + length else {
                throw HCIEventError(.truncatedReport(index: index, needed: 24 + length, available: p.endIndex - i),
                                    offset: i - base)
            }
            let address = BluetoothAddress(littleEndianBytes: p[(i + 3)..<(i + 9)]) ?? BluetoothAddress(value: 0)
            reports.append(HCIAdvertisingReport(
                format: .extended, eventType: UInt16(p[i]) | UInt16(p[i + 1]) << 8, addressType: p[i + 2],
                address: address, rssi: HCIAdvertisingReport.optionalPower(p[i + 13]),
                txPower: HCIAdvertisingReport.optionalPower(p[i + 12]), sid: p[i + 11],
                data: p[(i + 24)..<(i + 24 + length)]))
            i += 24 + length
        }
        guard i == p.endIndex else { throw HCIEventError(.trailingBytes(p.endIndex - i), offset: i - base) }
        return reports
    }
}
