#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Beacons
import Logging
import Metrics
import TriggerEngine

/// Scans through bluetoothd over the D-Bus system bus, beside every other client of the adapter: the only code in
/// GeoTrigger that talks D-Bus (through `SystemBus`, the only user of sd-bus).
///
/// `init` connects and finds the adapter (`/org/bluez/hciN`, or the adapter whose Address is a given BD_ADDR) and
/// checks it is powered; `start()` subscribes to the Device1 signals, sets this client's discovery filter (LE only,
/// `DuplicateData`: a signal for every advertisement, not only for changes) and starts discovery; `poll` turns the
/// signals into `BlueZAdvertisement`s; `stop()` stops this client's discovery (bluetoothd keeps scanning for
/// others). Closing the connection (`close()`, `deinit`) ends the session too: bluetoothd drops a client that left.
///
/// Not Sendable: use it from one task or thread.
public final class BlueZScanner {
    public struct Configuration: Hashable, Sendable {
        /// "hci0", an index ("0"), or an adapter's BD_ADDR.
        public var adapter: String
        /// Power a powered-off adapter on instead of failing with `adapterDown`.
        public var powerOn = false

        public init(adapter: String = "hci0", powerOn: Bool = false) {
            self.adapter = adapter
            self.powerOn = powerOn
        }
    }

    public let configuration: Configuration
    /// The adapter's object path, `/org/bluez/hci0`.
    public let adapterPath: String
    /// The adapter's kernel name (`hci0`), what the observer is named after.
    public var adapterName: String { String(adapterPath.split(separator: "/").last ?? "") }
    /// Signals with a property of the wrong type or form (counted, logged once, the rest of the signal used).
    public private(set) var malformedEvents = 0

    private var bus: SystemBus?
    private var table: BlueZDeviceTable
    private var discovering = false
    private let logger: Logger
    private let signals: Counter
    private let malformed: Counter
    private var warnedMalformed = false

    static let service = "org.bluez"
    static let messagesPerPoll = 512
    static let adapterInterface = "org.bluez.Adapter1"

    /// Connects and finds the adapter. Does not start scanning.
    public init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "geotrigger.bluez"),
                metricsDimensions: [(String, String)] = []) throws(BlueZScannerError) {
        self.configuration = configuration
        self.logger = logger
        signals = Counter(label: "geotrigger_bluetooth_dbus_signals_total", dimensions: metricsDimensions)
        malformed = Counter(label: "geotrigger_bluetooth_dbus_malformed_total", dimensions: metricsDimensions)
        let bus = try SystemBus()
        guard try Self.hasOwner(bus, Self.service) else { throw .bluetoothdNotRunning }
        let objects = try bus.call(Self.service, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").arguments()
        guard case .dictionary(let byPath)? = objects.first else {
            throw .malformedMessage("GetManagedObjects did not answer a{oa{sa{sv}}}")
        }
        let path = try Self.adapterPath(configuration.adapter, in: byPath)
        self.adapterPath = path
        self.table = BlueZDeviceTable(adapterPath: path)
        self.bus = bus

        // Devices bluetoothd already knows: their addresses and last data, so a change signal alone is enough.
        for (key, interfaces) in byPath {
            guard let p = key.text, case .dictionary(let i) = interfaces,
                  let properties = i[.string(BlueZDeviceTable.deviceInterface)] else { continue }
            _ = table.seed(path: p, properties: properties)
        }

        let powered = try bus.call(Self.service, path, "org.freedesktop.DBus.Properties", "Get",
                                   [.string(Self.adapterInterface), .string("Powered")]).arguments()
        if powered.first?.unwrapped != .boolean(true) {
            guard configuration.powerOn else { throw .adapterDown(adapterName) }
            _ = try bus.call(Self.service, path, "org.freedesktop.DBus.Properties", "Set",
                             [.string(Self.adapterInterface), .string("Powered"), .variant(.boolean(true))])
        }
    }

    deinit {
        if discovering { try? stop() }
    }

    static func hasOwner(_ bus: SystemBus, _ name: String) throws(BlueZScannerError) -> Bool {
        let reply = try bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                 "NameHasOwner", [.string(name)]).arguments()
        return reply.first == .boolean(true)
    }

    /// Whether bluetoothd is on the system bus: what `--backend auto` decides by. False when there is no bus.
    public static func isBluetoothdRunning() -> Bool {
        guard let bus = try? SystemBus() else { return false }
        return (try? hasOwner(bus, service)) ?? false
    }

    /// "hciN" or "N" → `/org/bluez/hciN` if bluetoothd has it; a BD_ADDR → the adapter with that Address.
    static func adapterPath(_ name: String, in objects: [DBusValue: DBusValue]) throws(BlueZScannerError) -> String {
        var adapters: [(path: String, address: BluetoothAddress?)] = []
        for (key, interfaces) in objects {
            guard let p = key.text, case .dictionary(let i) = interfaces,
                  let properties = i[.string(adapterInterface)] else { continue }
            var address: BluetoothAddress?
            if case .dictionary(let props) = properties, let a = props[.string("Address")]?.unwrapped.text {
                address = BluetoothAddress(string: a)
            }
            adapters.append((p, address))
        }
        let wanted: String? = if let n = Int(name), n >= 0 { "/org/bluez/hci\(n)" }
            else if name.hasPrefix("hci") { "/org/bluez/\(name)" } else { nil }
        if let wanted, adapters.contains(where: { $0.path == wanted }) { return wanted }
        if wanted == nil, let address = BluetoothAddress(string: name),
           let match = adapters.first(where: { $0.address == address }) {
            return match.path
        }
        throw .noAdapter(name)
    }

    /// Subscribes to the device signals, sets this client's discovery filter and starts discovery.
    public func start() throws(BlueZScannerError) {
        guard let bus, !discovering else { return }
        // Subscribed before discovery starts, so no advertisement falls between the two.
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'")
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'")
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='org.bluez.Device1',path_namespace='\(adapterPath)'")
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='org.bluez'")
        // LE only (no BR/EDR inquiry interleaved), and a signal for every advertisement received, not just changes.
        let filter: DBusValue = .dictionary([.string("Transport"): .variant(.string("le")),
                                             .string("DuplicateData"): .variant(.boolean(true))])
        _ = try bus.call(Self.service, adapterPath, Self.adapterInterface, "SetDiscoveryFilter", [filter])
        do {
            _ = try bus.call(Self.service, adapterPath, Self.adapterInterface, "StartDiscovery")
        } catch .callFailed(_, "org.bluez.Error.InProgress", _) {
            // This client's discovery is already running (a start after a failed stop): keep it.
        }
        discovering = true
        logger.info("bluetoothd discovery started", metadata: ["adapter": "\(adapterPath)"])
    }

    /// Waits up to `timeoutMilliseconds` for signals and hands out every advertisement in what arrives; returns
    /// how many (0 on timeout). Throws when the bus connection broke or bluetoothd left the bus.
    @discardableResult
    public func poll(timeoutMilliseconds: Int32, _ body: (BlueZAdvertisement) -> Void) throws(BlueZScannerError) -> Int {
        guard let bus else { throw .system(operation: "poll (scanner closed)", errno: EBADF) }
        var count = try drain(bus, body)
        if count == 0, try bus.wait(microseconds: UInt64(max(0, timeoutMilliseconds)) * 1000) {
            count = try drain(bus, body)
        }
        return count
    }

    private func drain(_ bus: SystemBus, _ body: (BlueZAdvertisement) -> Void) throws(BlueZScannerError) -> Int {
        var count = 0
        // Bounded, so that a flood of signals still lets the caller tick its clock between polls.
        var messages = 0
        while messages < Self.messagesPerPoll, let m = try bus.next() {
            messages += 1
            guard m.isSignal, let member = m.member, let path = m.path else { continue }
            // A body sd-bus cannot read is one malformed signal, skipped: it must not stop the scan.
            let args: [DBusValue]
            do {
                args = try m.arguments()
            } catch {
                malformedSignal(member, [])
                continue
            }
            if member == "NameOwnerChanged" {
                if args.count == 3, args[0].text == Self.service, args[2].text == "" { throw .bluetoothdNotRunning }
                continue
            }
            let update: BlueZDeviceTable.Update
            let now = Timestamp.wallClock()
            switch (m.interface, member) {
            case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
                guard args.count == 2, let device = args[0].text else { malformedSignal(member, args); continue }
                update = table.interfacesAdded(path: device, interfaces: args[1], at: now)
            case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
                guard args.count == 2, let device = args[0].text, case .array(let names) = args[1] else {
                    malformedSignal(member, args)
                    continue
                }
                table.interfacesRemoved(path: device, interfaces: names.compactMap(\.text))
                continue
            case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                guard table.isDevice(path) else { continue }
                guard args.count == 3, let interface = args[0].text else { malformedSignal(member, args); continue }
                let invalidated: [String] = if case .array(let a) = args[2] { a.compactMap(\.text) } else { [] }
                update = table.propertiesChanged(path: path, interface: interface, changed: args[1],
                                                 invalidated: invalidated, at: now)
            default:
                continue
            }
            signals.increment()
            if !update.problems.isEmpty {
                malformedEvents += 1
                malformed.increment()
                // The first in full; then only counted, so a misbehaving peer cannot flood the log.
                if !warnedMalformed {
                    warnedMalformed = true
                    logger.warning("malformed Device1 properties from bluetoothd (counted from here on)", metadata: [
                        "path": "\(path)", "problems": "\(update.problems.map(\.description))"])
                }
            }
            if let ad = update.advertisement {
                body(ad)
                count += 1
            }
        }
        return count
    }

    private func malformedSignal(_ member: String, _ args: [DBusValue]) {
        malformedEvents += 1
        malformed.increment()
        logger.debug("malformed signal", metadata: ["member": "\(member)", "arguments": "\(args.map(\.typeName))"])
    }

    /// Stops this client's discovery (bluetoothd goes on scanning for its other clients).
    public func stop() throws(BlueZScannerError) {
        guard let bus, discovering else { return }
        discovering = false
        _ = try bus.call(Self.service, adapterPath, Self.adapterInterface, "StopDiscovery")
    }

    /// Stops discovery and closes the connection now.
    public func close() throws(BlueZScannerError) {
        defer { bus = nil }
        try stop()
    }
}
