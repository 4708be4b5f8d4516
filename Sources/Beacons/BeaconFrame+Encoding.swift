import TriggerEngine

/// Advertising data for a frame: used by tests (re-encoding vectors), the benchmark's capture generator and anything
/// that wants to advertise. Only identity frames, URL and TLM are encodable; the result is AD bytes that
/// `BeaconFrameDecoder` decodes back to the same frame.
extension BeaconFrame {
    /// Flags AD structure (LE General Discoverable, BR/EDR not supported), as beacons send it.
    static let flagsStructure: [UInt8] = [0x02, 0x01, 0x06]

    /// The manufacturer payload after the company id (iBeacon: `02 15 …`; AltBeacon: `BE AC …`), or nil.
    /// For AltBeacon this is what AltBeacon's `BeaconParser.getBeaconAdvertisementData` returns.
    public func beaconPayload(altBeaconCode: UInt16 = 0xBEAC) -> [UInt8]? {
        switch identity {
        case let .iBeacon(uuid, major, minor)?:
            return [0x02, 0x15] + uuid.bytes + Self.be16(major) + Self.be16(minor)
                + [UInt8(bitPattern: Int8(clamping: txPower ?? -59))]
        case let .altBeacon(id1, id2, id3)?:
            return Self.be16(altBeaconCode) + id1.bytes + Self.be16(id2) + Self.be16(id3)
                + [UInt8(bitPattern: Int8(clamping: txPower ?? -59))] + (altBeaconReserved.map { [$0] } ?? [])
        default:
            return nil
        }
    }

    /// Complete advertising data (flags + the frame's structure), or nil for frames that cannot be encoded (EID,
    /// a URL that does not compress, a frame without what it needs).
    public func advertisingData(altBeaconCode: UInt16 = 0xBEAC) -> [UInt8]? {
        var structure: [UInt8]
        switch kind {
        case .iBeacon, .altBeacon:
            guard let payload = beaconPayload(altBeaconCode: altBeaconCode) else { return nil }
            let company = manufacturerId ?? (kind == .iBeacon ? BeaconFrameDecoder.appleCompanyId : 0x0118)
            structure = [AdvertisingData.ADType.manufacturerSpecificData, UInt8(company & 0xFF), UInt8(company >> 8)]
                + payload
        case .eddystoneUID:
            guard case let .eddystoneUID(ns, inst)? = identity else { return nil }
            structure = Self.eddystoneHeader + [0x00, rangingByte] + ns.bytes + inst.bytes + [0, 0]
        case .eddystoneURL:
            guard let url = telemetry?.url, let encoded = EddystoneURL.compress(url) else { return nil }
            structure = Self.eddystoneHeader + [0x10, rangingByte] + encoded
        case .eddystoneTLM:
            guard let tlm else { return nil }
            structure = Self.eddystoneHeader + tlm.frameBytes
        case .eddystoneEID:
            return nil
        }
        guard structure.count <= 254 else { return nil }
        var out = Self.flagsStructure
        if kind != .iBeacon && kind != .altBeacon { out += [0x03, 0x03, 0xAA, 0xFE] }  // Eddystone's service UUID list
        out.append(UInt8(structure.count))
        out += structure
        return out
    }

    private static let eddystoneHeader: [UInt8] = [AdvertisingData.ADType.serviceData16BitUUID, 0xAA, 0xFE]
    private var rangingByte: UInt8 {
        UInt8(bitPattern: Int8(clamping: rangingPower ?? ((txPower ?? -59) + BeaconFrame.eddystoneRangingOffset)))
    }
    private static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
