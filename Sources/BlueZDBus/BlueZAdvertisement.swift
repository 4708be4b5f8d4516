import Beacons
import TriggerEngine

/// One advertisement as bluetoothd reported it (a Device1 object appearing, or its RSSI or data changing), in the
/// form the scan pipeline takes: address, RSSI and the advertising data rebuilt from the properties.
public struct BlueZAdvertisement: Hashable, Sendable {
    public var timestamp: Timestamp
    /// The Device1 object path, `/org/bluez/hci0/dev_C0_FF_EE_00_00_02`.
    public var path: String
    public var address: BluetoothAddress?
    public var rssi: Int?
    public var advertisingData: [UInt8]

    public init(timestamp: Timestamp, path: String, address: BluetoothAddress?, rssi: Int?, advertisingData: [UInt8]) {
        self.timestamp = timestamp
        self.path = path
        self.address = address
        self.rssi = rssi
        self.advertisingData = advertisingData
    }
}
