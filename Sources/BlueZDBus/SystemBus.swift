import CSystemd
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An owned connection to the D-Bus system bus (`sd_bus`), flushed and closed in `deinit`; so bluetoothd also
/// forgets this client's discovery session when its owner goes away. Use from one thread.
final class SystemBus {
    private let bus: OpaquePointer
    /// How long a method call may take before it fails (bluetoothd answers within milliseconds when healthy).
    var callTimeoutMicroseconds: UInt64 = 10_000_000

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
    init() throws(BlueZScannerError) {
        var bus: OpaquePointer?
        let r = sd_bus_open_system(&bus)
        guard r >= 0, let bus else { throw .noSystemBus(errno: -r) }
        self.bus = bus
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// Calls a method and returns its reply; a D-Bus error reply is thrown as `callFailed`.
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ arguments: [DBusValue] = []) throws(BlueZScannerError) -> BusMessage {
        var m: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        guard r >= 0, let m else { throw .system(operation: "sd_bus_message_new_method_call(\(member))", errno: -r) }
        let message = BusMessage(taking: m)
        for a in arguments { try message.append(a) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let c = sd_bus_call(bus, message.pointer, callTimeoutMicroseconds, &error, &reply)
        guard c >= 0, let reply else {
            // sd-bus connects lazily: a bus that is not there shows up at the first call.
            if [ENOENT, ECONNREFUSED, ENOTCONN, ECONNRESET].contains(-c) { throw .noSystemBus(errno: -c) }
            if let name = error.name {
                throw .callFailed(method: "\(interface).\(member)", name: String(cString: name),
                                  message: error.message.map { String(cString: $0) } ?? "")
            }
            throw .system(operation: "\(interface).\(member)", errno: -c)
        }
        return BusMessage(taking: reply)
    }

    /// Asks the bus daemon to route matching signals to this connection (read back with `next()`).
    func addMatch(_ rule: String) throws(BlueZScannerError) {
        _ = try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [.string(rule)])
    }

    /// The next incoming message that nothing inside sd-bus consumed (signals, mostly); nil when none is queued.
    func next() throws(BlueZScannerError) -> BusMessage? {
        while true {
            var m: OpaquePointer?
            let r = sd_bus_process(bus, &m)
            if r < 0 {
                if -r == ECONNRESET || -r == ENOTCONN { throw .noSystemBus(errno: -r) }
                throw .system(operation: "sd_bus_process", errno: -r)
            }
            if let m { return BusMessage(taking: m) }
            if r == 0 { return nil }
        }
    }

    /// Waits for input up to `microseconds`; false on timeout or interruption.
    func wait(microseconds: UInt64) throws(BlueZScannerError) -> Bool {
        let r = sd_bus_wait(bus, microseconds)
        if r < 0 {
            if -r == EINTR { return false }
            throw .system(operation: "sd_bus_wait", errno: -r)
        }
        return r > 0
    }
}
