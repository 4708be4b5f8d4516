import TriggerEngine

/// Turns advertising data into a `BeaconFrame`: iBeacon, AltBeacon, Eddystone UID/URL/TLM/EID; anything else is nil.
///
/// A value type with no state beyond its configuration: safe to copy into every scanning task. It never traps and
/// never reads outside the input (see `AdvertisingData`). The first AD structure that decodes as a beacon wins.
public struct BeaconFrameDecoder: Hashable, Sendable {
    /// The AltBeacon "beacon code" values accepted after the company id (the AltBeacon spec's 0xBEAC by default).
    /// AltBeacon's own library lets apps match other codes the same way (`setMatchingBeaconTypeCode`).
    public var altBeaconCodes: [UInt16]

    public init(altBeaconCodes: [UInt16] = [0xBEAC]) { self.altBeaconCodes = altBeaconCodes }

    public static let appleCompanyId: UInt16 = 0x004C
    public static let eddystoneServiceUUID: UInt16 = 0xFEAA

    public func decode(_ ad: [UInt8]) -> BeaconFrame? { decode(AdvertisingData(ad)) }
    public func decode(_ ad: ArraySlice<UInt8>) -> BeaconFrame? { decode(AdvertisingData(ad)) }

    public func decode(_ ad: AdvertisingData) -> BeaconFrame? {
        for s in ad {
            switch s.type {
            case AdvertisingData.ADType.manufacturerSpecificData:
                if let f = decodeManufacturerData(s.data) { return f }
            case AdvertisingData.ADType.serviceData16BitUUID:
                let d = s.data
                guard d.count >= 2 else { continue }
                let uuid = UInt16(d[d.startIndex]) | UInt16(d[d.startIndex + 1]) << 8
                if uuid == Self.eddystoneServiceUUID, let f = decodeEddystone(d.dropFirst(2)) { return f }
            default:
                continue
            }
        }
        return nil
    }

    /// Manufacturer-specific data after the AD type: company id (2, little-endian), then the beacon payload.
    /// iBeacon: `4C 00 | 02 15 | UUID (16) | major (2) | minor (2) | measured power (1)`.
    /// AltBeacon: `company (2) | BE AC | ID1 (16) | ID2 (2) | ID3 (2) | reference RSSI (1) | MFG RSVD (1)`.
    /// A missing MFG RSVD byte is tolerated (AltBeacon's parser reads missing data fields as absent too).
    func decodeManufacturerData(_ d: ArraySlice<UInt8>) -> BeaconFrame? {
        guard d.count >= 25 else { return nil }
        let s = d.startIndex
        let company = UInt16(d[s]) | UInt16(d[s + 1]) << 8
        let code = UInt16(d[s + 2]) << 8 | UInt16(d[s + 3])
        let uuid = UUID128(high: Self.bigEndian(d, s + 4, 8), low: Self.bigEndian(d, s + 12, 8))
        let id2 = UInt16(d[s + 20]) << 8 | UInt16(d[s + 21])
        let id3 = UInt16(d[s + 22]) << 8 | UInt16(d[s + 23])
        let power = Int(Int8(bitPattern: d[s + 24]))
        if company == Self.appleCompanyId && code == 0x0215 {
            return BeaconFrame(kind: .iBeacon, identity: .iBeacon(uuid: uuid, major: id2, minor: id3), txPower: power,
                               manufacturerId: company)
        }
        guard altBeaconCodes.contains(code) else { return nil }
        return BeaconFrame(kind: .altBeacon, identity: .altBeacon(id1: uuid, id2: id2, id3: id3), txPower: power,
                           manufacturerId: company, altBeaconReserved: d.count > 25 ? d[s + 25] : nil)
    }

    /// Eddystone service data after the 0xFEAA UUID, starting at the frame-type byte.
    func decodeEddystone(_ f: ArraySlice<UInt8>) -> BeaconFrame? {
        guard let type = f.first else { return nil }
        let s = f.startIndex
        func ranging() -> Int { Int(Int8(bitPattern: f[s + 1])) }
        switch type {
        case 0x00:
            // UID: type, ranging, namespace (10), instance (6), RFU (2, optional: AltBeacon's own vectors omit it).
            guard f.count >= 18 else { return nil }
            let ns = EddystoneNamespace(high: UInt16(Self.bigEndian(f, s + 2, 2)), low: Self.bigEndian(f, s + 4, 8))
            let inst = EddystoneInstance(value: Self.bigEndian(f, s + 12, 6))
            let r = ranging()
            return BeaconFrame(kind: .eddystoneUID, identity: .eddystoneUID(namespace: ns, instance: inst),
                               txPower: r - BeaconFrame.eddystoneRangingOffset, rangingPower: r)
        case 0x10:
            // URL: type, ranging, scheme prefix, encoded URL.
            guard f.count >= 3, let url = EddystoneURL.expand(f.dropFirst(2)) else { return nil }
            let r = ranging()
            return BeaconFrame(kind: .eddystoneURL, telemetry: BeaconTelemetry(url: url),
                               txPower: r - BeaconFrame.eddystoneRangingOffset, rangingPower: r)
        case EddystoneTLM.frameType:
            // Only version 0x00 is plain telemetry; 0x01 is the encrypted eTLM, which we cannot read.
            guard let tlm = EddystoneTLM(frame: f), tlm.version == 0 else { return nil }
            return BeaconFrame(kind: .eddystoneTLM, telemetry: tlm.telemetry, tlm: tlm)
        case 0x30:
            // EID: type, ranging, ephemeral id (8).
            guard f.count >= 10 else { return nil }
            let r = ranging()
            return BeaconFrame(kind: .eddystoneEID, telemetry: BeaconTelemetry(ephemeralId: hexString(f[(s + 2)..<(s + 10)])),
                               txPower: r - BeaconFrame.eddystoneRangingOffset, rangingPower: r)
        default:
            return nil
        }
    }

    /// `n` ≤ 8 bytes at `at` as a big-endian integer; the caller has checked the bounds.
    /// (Used instead of UUID128/EddystoneNamespace's `init(bytes:)`: those are generic across the module boundary
    /// and measured 4.8 µs per call unspecialised, which dominated decoding.)
    @inline(__always)
    static func bigEndian(_ b: ArraySlice<UInt8>, _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in at..<(at + n) { v = v << 8 | UInt64(b[k]) }
        return v
    }
}
