#if canImport(Glibc)
import SystemErrors
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why the scanner could not open, configure or read the adapter, in words an operator can act on.
public enum HCIScannerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kernel has no Bluetooth support: `socket(AF_BLUETOOTH)` fails (EAFNOSUPPORT), as in most containers and CI.
    case bluetoothUnsupported
    case noAdapter(String)
    case adapterDown(String)
    /// EPERM/EACCES on a raw HCI operation.
    case permissionDenied(operation: String)
    /// EBUSY, or the controller refused to change scanning because a scan is already running.
    case adapterBusy(String, operation: String)
    case invalidConfiguration(String)
    /// Anything else, with the failing call and errno.
    case system(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .bluetoothUnsupported:
            return "this kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed: \(SystemError.numbered(EAFNOSUPPORT))); "
                + "run on a host or VM whose kernel has Bluetooth (CONFIG_BT); `geotrigger scan --btsnoop FILE` replays a capture without one"
        case .noAdapter(let name):
            return "no Bluetooth adapter \"\(name)\" (check `hciconfig -a` or `ls /sys/class/bluetooth`)"
        case .adapterDown(let name):
            return "Bluetooth adapter \(name) is down; bring it up with `hciconfig \(name) up` or `bluetoothctl power on`"
        case .permissionDenied(let op):
            return "permission denied for \(op): raw HCI scanning needs CAP_NET_RAW; run as root or "
                + "`setcap cap_net_raw+ep` on the geotrigger binary"
        case let .adapterBusy(name, op):
            return "Bluetooth adapter \(name) is busy (\(op)): another scan is probably running; stop bluetoothd's "
                + "discovery (`bluetoothctl scan off`) or other scanners and retry"
        case .invalidConfiguration(let why):
            return "invalid scan configuration: \(why)"
        case let .system(op, e):
            return "\(op) failed: \(SystemError.numbered(e))"
        }
    }
}
