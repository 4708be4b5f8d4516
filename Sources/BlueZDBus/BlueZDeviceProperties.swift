import Beacons
import TriggerEngine

/// What an `org.bluez.Device1` property dictionary (`a{sv}`) says about an advertiser, as far as sightings need it.
/// Every field is nil when the dictionary did not carry it (a `PropertiesChanged` carries only what changed).
///
/// Types are checked against BlueZ's Device1 API (doc/device-api.txt): Address `s`, AddressType `s`, RSSI `n`,
/// TxPower `n`, ManufacturerData `a{qv}` with `ay` values, ServiceData `a{sv}` keyed by 128-bit UUID string with
/// `ay` values. A property of another type is reported in `problems` and left out; unknown properties are ignored.
public struct BlueZDeviceProperties: Hashable, Sendable {
    public var address: BluetoothAddress?
    /// "public" or "random".
    public var addressType: String?
    /// dBm; nil when absent or when bluetoothd passed on the controller's 127, "not available" (btvirt sends it),
    /// which the raw HCI path also reads as nil.
    public var rssi: Int?
    /// The dictionary carried RSSI, available or not: bluetoothd sets it from each advertisement received.
    public var rssiReported = false
    /// The advertised TX Power Level AD field (not a beacon's calibrated 1 m power, which is in its frame).
    public var txPower: Int?
    /// By company identifier.
    public var manufacturerData: [UInt16: [UInt8]]?
    /// By service UUID, lower-case 128-bit form (`0000feaa-0000-1000-8000-00805f9b34fb`).
    public var serviceData: [UUID128: [UInt8]]?

    public init(address: BluetoothAddress? = nil, addressType: String? = nil, rssi: Int? = nil, txPower: Int? = nil,
                manufacturerData: [UInt16: [UInt8]]? = nil, serviceData: [UUID128: [UInt8]]? = nil) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.rssiReported = rssi != nil
        self.txPower = txPower
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
    }

    /// True when the dictionary carried something that only a received advertisement updates (RSSI or data).
    public var isAdvertisement: Bool { rssiReported || manufacturerData != nil || serviceData != nil }

    /// Reads an `a{sv}` as the message reader gives it (`.dictionary` of `.string` keys and `.variant` values).
    public static func read(_ dictionary: DBusValue) -> (properties: BlueZDeviceProperties, problems: [BlueZPropertyError]) {
        var p = BlueZDeviceProperties()
        var problems: [BlueZPropertyError] = []
        guard case .dictionary(let entries) = dictionary else {
            return (p, [.type("properties", expected: "a{sv}", got: dictionary)])
        }
        // Sorted so that problems come out in the same order every time.
        for (key, value) in entries.sorted(by: { ($0.key.text ?? "") < ($1.key.text ?? "") }) {
            guard case .string(let name) = key else {
                problems.append(.type("properties", expected: "string keys", got: key))
                continue
            }
            guard case .variant(let v) = value else {
                problems.append(.type(name, expected: "a variant", got: value))
                continue
            }
            do throws(BlueZPropertyError) {
                switch name {
                case "Address": p.address = try address(v)
                case "AddressType": p.addressType = try string(name, v)
                case "RSSI":
                    let r = try int16(name, v)
                    p.rssiReported = true
                    p.rssi = r == Int(HCIAdvertisingReport.unavailable) ? nil : r
                case "TxPower": p.txPower = try int16(name, v)
                case "ManufacturerData": p.manufacturerData = try manufacturerData(v)
                case "ServiceData": p.serviceData = try serviceData(v)
                default: continue
                }
            } catch {
                problems.append(error)
            }
        }
        return (p, problems)
    }

    static func string(_ name: String, _ v: DBusValue) throws(BlueZPropertyError) -> String {
        guard case .string(let s) = v else { throw .type(name, expected: "s", got: v) }
        return s
    }

    static func int16(_ name: String, _ v: DBusValue) throws(BlueZPropertyError) -> Int {
        guard case .int16(let n) = v else { throw .type(name, expected: "n", got: v) }
        return Int(n)
    }

    static func address(_ v: DBusValue) throws(BlueZPropertyError) -> BluetoothAddress {
        let s = try string("Address", v)
        guard let a = BluetoothAddress(string: s) else {
            throw BlueZPropertyError(property: "Address", reason: "\"\(s)\" is not a Bluetooth address")
        }
        return a
    }

    static func manufacturerData(_ v: DBusValue) throws(BlueZPropertyError) -> [UInt16: [UInt8]] {
        guard case .dictionary(let entries) = v else { throw .type("ManufacturerData", expected: "a{qv}", got: v) }
        var out: [UInt16: [UInt8]] = [:]
        for (key, value) in entries {
            guard case .uint16(let company) = key else {
                throw .type("ManufacturerData", expected: "company identifiers of type q", got: key)
            }
            guard case .bytes(let data) = value.unwrapped, case .variant = value else {
                throw BlueZPropertyError(property: "ManufacturerData",
                                         reason: "company 0x\(hex(company)): expected v(ay), got \(value.typeName)")
            }
            out[company] = data
        }
        return out
    }

    static func serviceData(_ v: DBusValue) throws(BlueZPropertyError) -> [UUID128: [UInt8]] {
        guard case .dictionary(let entries) = v else { throw .type("ServiceData", expected: "a{sv}", got: v) }
        var out: [UUID128: [UInt8]] = [:]
        for (key, value) in entries {
            guard case .string(let text) = key else {
                throw .type("ServiceData", expected: "UUID strings of type s", got: key)
            }
            guard let uuid = UUID128(string: text) else {
                throw BlueZPropertyError(property: "ServiceData", reason: "\"\(text)\" is not a 128-bit UUID")
            }
            guard case .bytes(let data) = value.unwrapped, case .variant = value else {
                throw BlueZPropertyError(property: "ServiceData",
                                         reason: "service \(text): expected v(ay), got \(value.typeName)")
            }
            out[uuid] = data
        }
        return out
    }

    static func hex(_ n: UInt16) -> String {
        let s = String(n, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}
