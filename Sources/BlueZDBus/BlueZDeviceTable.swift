import Beacons
import TriggerEngine

/// bluetoothd's Device1 objects under one adapter, as the signals describe them: `InterfacesAdded` gives a
/// device's properties, `PropertiesChanged` only what changed, so the address, RSSI and data of each device are
/// kept here and every signal that says an advertisement was received becomes one `BlueZAdvertisement` with the
/// whole current picture. Pure: the scanner feeds it decoded signals, the tests recorded ones.
public struct BlueZDeviceTable: Sendable {
    /// `/org/bluez/hci0`: signals for other adapters' devices are not ours.
    public let adapterPath: String
    private var devices: [String: BlueZDeviceProperties] = [:]
    public static let deviceInterface = "org.bluez.Device1"

    public init(adapterPath: String) { self.adapterPath = adapterPath }

    /// What one signal gave: the advertisement it reports, if any, and the properties that were malformed.
    public struct Update: Hashable, Sendable {
        public var advertisement: BlueZAdvertisement?
        public var problems: [BlueZPropertyError]
    }

    public var count: Int { devices.count }

    /// Whether an object path is a device of this adapter (`ADAPTER/dev_…`, nothing below it).
    public func isDevice(_ path: String) -> Bool {
        path.hasPrefix(adapterPath + "/dev_") && !path.dropFirst(adapterPath.count + 1).contains("/")
    }

    /// A device already known when scanning starts (GetManagedObjects): remembered, not reported as heard.
    public mutating func seed(path: String, properties: DBusValue) -> [BlueZPropertyError] {
        guard isDevice(path) else { return [] }
        let (p, problems) = BlueZDeviceProperties.read(properties)
        devices[path] = merged(devices[path] ?? Self.fromPath(path), p)
        return problems
    }

    /// `InterfacesAdded(o path, a{sa{sv}} interfaces)`: a device newly discovered, heard now when it came with an
    /// RSSI or advertising data.
    public mutating func interfacesAdded(path: String, interfaces: DBusValue, at time: Timestamp) -> Update {
        guard isDevice(path) else { return Update(advertisement: nil, problems: []) }
        guard case .dictionary(let byInterface) = interfaces else {
            return Update(advertisement: nil, problems: [.type("interfaces", expected: "a{sa{sv}}", got: interfaces)])
        }
        guard let properties = byInterface[.string(Self.deviceInterface)] else {
            return Update(advertisement: nil, problems: [])
        }
        return apply(path: path, properties, at: time)
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` on a device's path.
    public mutating func propertiesChanged(path: String, interface: String, changed: DBusValue,
                                           invalidated: [String], at time: Timestamp) -> Update {
        guard interface == Self.deviceInterface, isDevice(path) else { return Update(advertisement: nil, problems: []) }
        if var known = devices[path] {
            for name in invalidated {
                switch name {
                case "RSSI":
                    known.rssi = nil
                    known.rssiReported = false
                case "TxPower": known.txPower = nil
                case "ManufacturerData": known.manufacturerData = nil
                case "ServiceData": known.serviceData = nil
                default: break
                }
            }
            devices[path] = known
        }
        return apply(path: path, changed, at: time)
    }

    /// `InterfacesRemoved(o path, as interfaces)`: bluetoothd forgot the device (not heard for its temporary timeout).
    public mutating func interfacesRemoved(path: String, interfaces: [String]) {
        if interfaces.contains(Self.deviceInterface) { devices[path] = nil }
    }

    private mutating func apply(path: String, _ dictionary: DBusValue, at time: Timestamp) -> Update {
        let (p, problems) = BlueZDeviceProperties.read(dictionary)
        let device = merged(devices[path] ?? Self.fromPath(path), p)
        devices[path] = device
        guard p.isAdvertisement else { return Update(advertisement: nil, problems: problems) }
        let (bytes, tooLong) = device.advertisingData()
        let ad = BlueZAdvertisement(timestamp: time, path: path, address: device.address, rssi: device.rssi,
                                    advertisingData: bytes)
        return Update(advertisement: ad, problems: problems + tooLong)
    }

    private func merged(_ old: BlueZDeviceProperties, _ new: BlueZDeviceProperties) -> BlueZDeviceProperties {
        var d = old
        if let a = new.address { d.address = a }
        if let t = new.addressType { d.addressType = t }
        if new.rssiReported {
            d.rssi = new.rssi
            d.rssiReported = true
        }
        if let t = new.txPower { d.txPower = t }
        if let m = new.manufacturerData { d.manufacturerData = m }
        if let s = new.serviceData { d.serviceData = s }
        return d
    }

    /// BlueZ names device objects `dev_` and the address with underscores: the address when no Address property
    /// was seen (a device that appeared before the table did).
    static func fromPath(_ path: String) -> BlueZDeviceProperties {
        guard let slash = path.lastIndex(of: "/") else { return BlueZDeviceProperties() }
        let last = path[path.index(after: slash)...]
        guard last.hasPrefix("dev_") else { return BlueZDeviceProperties() }
        return BlueZDeviceProperties(address: BluetoothAddress(string: String(last.dropFirst(4).map { $0 == "_" ? ":" : $0 })))
    }
}
