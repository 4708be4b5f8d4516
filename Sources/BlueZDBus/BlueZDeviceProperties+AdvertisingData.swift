import Beacons
import TriggerEngine

extension BlueZDeviceProperties {
    /// The Bluetooth Base UUID's low 64 bits and the mask of its high half around the 16/32-bit alias
    /// (`0000xxxx-0000-1000-8000-00805f9b34fb`).
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    static let baseHigh: UInt64 = 0x0000_0000_0000_1000

    /// Rebuilds the advertising data bluetoothd took apart: one manufacturer-specific AD structure per company (by
    /// company id), then one service-data structure per service (16-bit form for Base UUIDs, as Eddystone's 0xFEAA
    /// is sent; 128-bit form otherwise), so the same `BeaconFrameDecoder` reads D-Bus and raw-HCI sightings.
    /// An entry too long for one AD structure (254 bytes of payload) is reported and left out.
    public func advertisingData() -> (bytes: [UInt8], problems: [BlueZPropertyError]) {
        var out: [UInt8] = []
        var problems: [BlueZPropertyError] = []
        func structure(_ type: UInt8, _ payload: [UInt8], _ property: String, _ what: String) {
            guard payload.count <= 254 else {
                problems.append(BlueZPropertyError(
                    property: property, reason: "\(what): \(payload.count) bytes do not fit one AD structure (254)"))
                return
            }
            out.append(UInt8(payload.count + 1))
            out.append(type)
            out += payload
        }
        if let txPower {
            if let byte = Int8(exactly: txPower) {
                structure(0x0A, [UInt8(bitPattern: byte)], "TxPower", "TX power")
            } else {
                problems.append(BlueZPropertyError(property: "TxPower", reason: "\(txPower) dBm does not fit the AD field's signed byte"))
            }
        }
        for (company, data) in (manufacturerData ?? [:]).sorted(by: { $0.key < $1.key }) {
            structure(AdvertisingData.ADType.manufacturerSpecificData,
                      [UInt8(company & 0xFF), UInt8(company >> 8)] + data, "ManufacturerData",
                      "company 0x\(Self.hex(company))")
        }
        for (uuid, data) in (serviceData ?? [:]).sorted(by: { $0.key.description < $1.key.description }) {
            if uuid.low == Self.baseLow, uuid.high & 0xFFFF_FFFF == Self.baseHigh, uuid.high >> 48 == 0 {
                // A 16-bit alias, little-endian as on air.
                let short = UInt16(truncatingIfNeeded: uuid.high >> 32)
                structure(AdvertisingData.ADType.serviceData16BitUUID, [UInt8(short & 0xFF), UInt8(short >> 8)] + data,
                          "ServiceData", "service \(uuid)")
            } else {
                structure(0x21, uuid.bytes.reversed() + data, "ServiceData", "service \(uuid)")
            }
        }
        return (out, problems)
    }
}
