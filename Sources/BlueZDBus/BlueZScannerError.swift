#if canImport(Glibc)
import SystemErrors
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why scanning through bluetoothd could not start or went on failing, in words an operator can act on.
public enum BlueZScannerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No system bus to connect to (no dbus-daemon, or its socket is elsewhere: `DBUS_SYSTEM_BUS_ADDRESS`).
    case noSystemBus(errno: Int32)
    /// The system bus has no `org.bluez`: bluetoothd is not running (or it left while we scanned).
    case bluetoothdNotRunning
    case noAdapter(String)
    case adapterDown(String)
    /// bluetoothd or the bus refused a call; `name` is the D-Bus error name (`org.bluez.Error.NotReady`…).
    case callFailed(method: String, name: String, message: String)
    /// A message that could not be read (the bus library's complaint).
    case malformedMessage(String)
    case system(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .noSystemBus(let e):
            return "cannot connect to the D-Bus system bus (\(SystemError.text(e))): is dbus running? "
                + "Use --backend hci to scan without bluetoothd"
        case .bluetoothdNotRunning:
            return "bluetoothd is not on the system bus (no org.bluez): start bluetooth.service, or use --backend hci"
        case .noAdapter(let name):
            return "bluetoothd has no adapter \"\(name)\" (`bluetoothctl list` shows them)"
        case .adapterDown(let name):
            return "Bluetooth adapter \(name) is powered off; `bluetoothctl power on`, or scan with --up"
        case let .callFailed(method, name, message):
            if name == "org.freedesktop.DBus.Error.AccessDenied" {
                return "\(method) was refused by the bus policy (\(message)): run as root or as a user that "
                    + "bluetoothd's D-Bus policy allows (group bluetooth on Debian)"
            }
            return "\(method) failed: \(name): \(message)"
        case .malformedMessage(let why):
            return "malformed D-Bus message: \(why)"
        case let .system(op, e):
            return "\(op) failed: \(SystemError.text(e))"
        }
    }
}
