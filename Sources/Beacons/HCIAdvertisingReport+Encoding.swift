/// Building LE Advertising Report events: for btsnoop captures written by tests and the benchmark, and for btvirt's
/// test vendor command, which takes the event parameters as the host should receive them.
extension HCIAdvertisingReport {
    /// An LE Meta event (event code first, no H4 byte) carrying `reports` as legacy (0x02) or extended (0x0D) reports,
    /// per the first report's format. nil when the reports do not fit one event: legacy data over 31 bytes, extended
    /// over 229, more than 25 (legacy) or 10 (extended) reports, parameters over 255 bytes, or mixed formats.
    public static func leMetaEvent(_ reports: [HCIAdvertisingReport]) -> [UInt8]? {
        guard let format = reports.first?.format, reports.allSatisfy({ $0.format == format }) else { return nil }
        var params: [UInt8]
        switch format {
        case .legacy:
            guard reports.count <= 25 else { return nil }
            params = [HCIEventParser.leAdvertisingReport, UInt8(reports.count)]
            for r in reports {
                guard r.data.count <= HCIEventParser.maximumLegacyDataLength else { return nil }
                params.append(UInt8(truncatingIfNeeded: r.eventType))
                params.append(r.addressType)
                params += r.address.littleEndianBytes
                params.append(UInt8(r.data.count))
                params += r.data
                params.append(powerByte(r.rssi))
            }
        case .extended:
            guard reports.count <= 10 else { return nil }
            params = [HCIEventParser.leExtendedAdvertisingReport, UInt8(reports.count)]
            for r in reports {
                guard r.data.count <= HCIEventParser.maximumExtendedDataLength else { return nil }
                params += [UInt8(r.eventType & 0xFF), UInt8(r.eventType >> 8), r.addressType]
                params += r.address.littleEndianBytes
                params += [0x01, 0x00, r.sid, powerByte(r.txPower), powerByte(r.rssi), 0x00, 0x00, 0x00]
                params += [0, 0, 0, 0, 0, 0]
                params.append(UInt8(r.data.count))
                params += r.data
            }
        }
        guard params.count <= 255 else { return nil }
        return [HCIEventParser.leMetaEvent, UInt8(params.count)] + params
    }

    /// Signed dBm byte; nil (or out of range) becomes 127, "not available".
    static func powerByte(_ v: Int?) -> UInt8 {
        guard let v, (-127...126).contains(v) else { return UInt8(bitPattern: HCIAdvertisingReport.unavailable) }
        return UInt8(bitPattern: Int8(v))
    }
}
