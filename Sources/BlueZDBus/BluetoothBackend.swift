import Beacons
import Logging

/// How `scan` and `serve --bluetooth` reach the adapter: `dbus` through bluetoothd (the adapter stays shared with
/// every other Bluetooth program), `hci` with a raw HCI socket (hosts without bluetoothd; needs CAP_NET_RAW and an
/// adapter nobody else scans with), `auto` = dbus when `org.bluez` is on the system bus, else hci.
public enum BluetoothBackend: String, CaseIterable, Sendable {
    case auto, dbus, hci

    /// `auto` decided now; the others as they are.
    public func resolved() -> BluetoothBackend {
        guard self == .auto else { return self }
        return BlueZScanner.isBluetoothdRunning() ? .dbus : .hci
    }

    /// Opens the adapter and starts scanning with the resolved backend. `active` is raw HCI's choice (bluetoothd's
    /// discovery always scans actively); `bringUp` brings the adapter up (hci) or powers it on (dbus).
    /// Returns the scanner and the backend it uses; throws `HCIScannerError` or `BlueZScannerError`.
    public func open(adapter: String, active: Bool = false, bringUp: Bool = false,
                     logger: Logger, metricsDimensions: [(String, String)] = []) throws
        -> (scanner: any LiveBeaconScanner, backend: BluetoothBackend)
    {
        switch resolved() {
        case .dbus:
            let s = try BlueZScanner(configuration: .init(adapter: adapter, powerOn: bringUp), logger: logger,
                                     metricsDimensions: metricsDimensions)
            try s.start()
            return (s, .dbus)
        default:
            var config: HCIScanner.Configuration
            if let index = Int(adapter.drop { !$0.isNumber }), adapter.hasPrefix("hci") || Int(adapter) != nil {
                config = .init(adapterIndex: index, active: active)
            } else {
                config = .init(adapter: adapter, active: active)
            }
            config.bringUp = bringUp
            let s = try HCIScanner(configuration: config)
            try s.start()
            return (s, .hci)
        }
    }
}
