#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CBluetooth
import Synchronization
import TriggerEngine

/// A raw-HCI LE scanner on libbluetooth: the only code in GeoTrigger that touches libbluetooth or a Bluetooth socket.
///
/// It owns the HCI socket from `init` to `close()`/`deinit`. `init` opens the adapter and checks that it is up;
/// `start()` sets the scan parameters, saves the socket's event filter and replaces it with "LE Meta events only",
/// and enables scanning without duplicate filtering (every advertisement, so RSSI can be smoothed); `poll` reads
/// with a timeout so a loop can be stopped; `stop()` disables scanning and restores the filter. `deinit` does all
/// of that best-effort, so an early exit leaves neither a running scan nor an open socket behind.
///
/// Not Sendable: use it from one task or thread. To stop a loop from elsewhere, `run` watches a `StopFlag`.
public final class HCIScanner {
    public struct Configuration: Hashable, Sendable {
        /// "hci0", or an adapter's BD_ADDR.
        public var adapter: String
        /// Active scanning sends scan requests (and reports scan responses); passive only listens.
        public var active: Bool
        /// Scan interval and window in milliseconds, 2.5 ms – 10.24 s, window ≤ interval (0.625 ms units on air).
        public var intervalMilliseconds: Double
        public var windowMilliseconds: Double
        /// Own address type for scan requests: 0 public, 1 random.
        public var ownAddressType: UInt8
        /// HCI command timeout in milliseconds.
        public var commandTimeoutMilliseconds: Int32
        /// Bring a down adapter up instead of failing with `adapterDown` (needs CAP_NET_ADMIN).
        public var bringUp = false

        public init(adapter: String = "hci0", active: Bool = false, intervalMilliseconds: Double = 100,
                    windowMilliseconds: Double = 100, ownAddressType: UInt8 = 0, commandTimeoutMilliseconds: Int32 = 1000) {
            self.adapter = adapter
            self.active = active
            self.intervalMilliseconds = intervalMilliseconds
            self.windowMilliseconds = windowMilliseconds
            self.ownAddressType = ownAddressType
            self.commandTimeoutMilliseconds = commandTimeoutMilliseconds
        }

        public init(adapterIndex: Int, active: Bool = false) {
            self.init(adapter: "hci\(adapterIndex)", active: active)
        }

        /// Interval and window in 0.625 ms units, validated against the HCI ranges.
        func scanUnits() throws(HCIScannerError) -> (interval: UInt16, window: UInt16) {
            func units(_ ms: Double, _ name: String) throws(HCIScannerError) -> UInt16 {
                let u = (ms / 0.625).rounded()
                guard u.isFinite, u >= 0x0004, u <= 0x4000 else {
                    throw .invalidConfiguration("\(name) \(ms) ms is outside 2.5 ms – 10240 ms")
                }
                return UInt16(u)
            }
            let i = try units(intervalMilliseconds, "scan interval")
            let w = try units(windowMilliseconds, "scan window")
            guard w <= i else { throw .invalidConfiguration("scan window \(windowMilliseconds) ms exceeds the interval") }
            return (i, w)
        }
    }

    /// One advertising report as the scanner hands it out, stamped with the wall-clock time it was read.
    public struct Advertisement: Sendable {
        public var timestamp: Timestamp
        public var report: HCIAdvertisingReport
    }

    /// Set from any thread to make `run` return after its current poll.
    public final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        public init() {}
        public func stop() { flag.store(true, ordering: .relaxed) }
        public var isStopped: Bool { flag.load(ordering: .relaxed) }
    }

    public let configuration: Configuration
    public let adapterIndex: Int32
    /// HCI events that failed to parse while scanning (counted and skipped).
    public private(set) var malformedEvents = 0

    private var dd: Int32
    private var savedFilter: hci_filter?
    private var scanning = false
    private var buffer = [UInt8](repeating: 0, count: 1024)

    /// Opens the adapter and checks it is up. Does not start scanning.
    public init(configuration: Configuration = Configuration()) throws(HCIScannerError) {
        _ = try configuration.scanUnits()
        self.configuration = configuration
        let name = configuration.adapter

        // Probe the address family first so a kernel without Bluetooth gets its own clear error.
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if probe < 0 {
            let e = errno
            if e == EAFNOSUPPORT || e == EPROTONOSUPPORT { throw .bluetoothUnsupported }
            throw Self.classify(e, operation: "socket(AF_BLUETOOTH)", adapter: name)
        }
        closeDescriptor(probe)

        let id = try Self.resolve(name)
        self.adapterIndex = id
        // hci_devinfo is libbluetooth's wrapper of the HCIGETDEVINFO ioctl (whose _IOR request number is a macro).
        var info = hci_dev_info()
        if hci_devinfo(id, &info) < 0 {
            let e = errno
            if e == ENODEV { throw .noAdapter(name) }
            throw Self.classify(e, operation: "HCIGETDEVINFO", adapter: name)
        }
        if hci_test_bit(Int32(HCI_UP), &info.flags) == 0 {
            guard configuration.bringUp else { throw .adapterDown(name) }
            try Self.bringUp(id, adapter: name)
        }

        let dd = hci_open_dev(id)
        if dd < 0 {
            let e = errno
            if e == ENODEV { throw .noAdapter(name) }
            throw Self.classify(e, operation: "hci_open_dev(\(id))", adapter: name)
        }
        self.dd = dd
    }

    deinit {
        if scanning { try? stop() }
        if dd >= 0 { hci_close_dev(dd) }
    }

    /// Brings an adapter up (what `hciconfig hciN up` did; Debian 12's BlueZ no longer ships hciconfig).
    /// HCIDEVUP is `_IOW('H', 201, int)`, a function-like macro that does not import: its value is spelled out.
    static func bringUp(_ id: Int32, adapter: String) throws(HCIScannerError) {
        let ctl = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard ctl >= 0 else { throw classify(errno, operation: "socket(AF_BLUETOOTH)", adapter: adapter) }
        defer { closeDescriptor(ctl) }
        let hciDevUp: UInt = 0x4004_48C9
        if ioctl(ctl, hciDevUp, id) < 0, errno != EALREADY {
            throw classify(errno, operation: "HCIDEVUP", adapter: adapter)
        }
    }

    /// "hciN" → N without touching the kernel; anything else (a BD_ADDR) through `hci_devid`.
    static func resolve(_ name: String) throws(HCIScannerError) -> Int32 {
        if name.hasPrefix("hci"), let n = Int32(name.dropFirst(3)), n >= 0, n < 0xFFFF { return n }
        guard BluetoothAddress(string: name) != nil else { throw .noAdapter(name) }
        let id = name.withCString { hci_devid($0) }
        guard id >= 0 else { throw .noAdapter(name) }
        return id
    }

    static func classify(_ e: Int32, operation: String, adapter: String) -> HCIScannerError {
        switch e {
        case EPERM, EACCES: return .permissionDenied(operation: operation)
        case EBUSY: return .adapterBusy(adapter, operation: operation)
        case ENODEV: return .noAdapter(adapter)
        case ENETDOWN: return .adapterDown(adapter)
        case EAFNOSUPPORT: return .bluetoothUnsupported
        default: return .system(operation: operation, errno: e)
        }
    }

    /// Sets the scan parameters, installs the LE Meta event filter and enables scanning.
    public func start() throws(HCIScannerError) {
        guard dd >= 0 else { throw .system(operation: "start (scanner closed)", errno: EBADF) }
        guard !scanning else { return }
        let name = configuration.adapter
        let (interval, window) = try configuration.scanUnits()
        let timeout = configuration.commandTimeoutMilliseconds

        // HCI wants little-endian 16-bit parameters; C callers use htobs(), a function-like macro that does not
        // import into Swift, hence `.littleEndian`.
        // libbluetooth reports a non-zero command status as EIO. The parameters were validated above, so the usual
        // cause is Command Disallowed: scanning is already enabled by someone else (typically bluetoothd).
        if hci_le_set_scan_parameters(dd, configuration.active ? 0x01 : 0x00, interval.littleEndian,
                                      window.littleEndian, configuration.ownAddressType, 0x00, timeout) < 0 {
            let e = errno
            if e == EIO { throw .adapterBusy(name, operation: "LE Set Scan Parameters") }
            throw Self.classify(e, operation: "LE Set Scan Parameters", adapter: name)
        }

        var old = hci_filter()
        var length = socklen_t(MemoryLayout<hci_filter>.size)
        if getsockopt(dd, SOL_HCI, HCI_FILTER, &old, &length) < 0 {
            throw Self.classify(errno, operation: "getsockopt(HCI_FILTER)", adapter: name)
        }
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        if setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) < 0 {
            throw Self.classify(errno, operation: "setsockopt(HCI_FILTER)", adapter: name)
        }
        savedFilter = old

        // filter_dup = 0: every advertisement, not one per device, so RSSI can be smoothed.
        if hci_le_set_scan_enable(dd, 0x01, 0x00, timeout) < 0 {
            let e = errno
            restoreFilter()
            if e == EIO { throw .adapterBusy(name, operation: "LE Set Scan Enable") }
            throw Self.classify(e, operation: "LE Set Scan Enable", adapter: name)
        }
        scanning = true
    }

    /// Waits up to `timeoutMilliseconds` for events and hands out every advertising report in what arrives;
    /// returns the number of reports (0 on timeout). Malformed events are counted in `malformedEvents` and skipped.
    @discardableResult
    public func poll(timeoutMilliseconds: Int32, _ body: (Advertisement) -> Void) throws(HCIScannerError) -> Int {
        guard dd >= 0 else { throw .system(operation: "poll (scanner closed)", errno: EBADF) }
        let (ready, revents) = pollDescriptor(dd, timeoutMilliseconds: timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return 0 }
            throw Self.classify(errno, operation: "poll", adapter: configuration.adapter)
        }
        if ready == 0 { return 0 }
        if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && revents & Int16(POLLIN) == 0 {
            throw .system(operation: "poll (adapter \(configuration.adapter) went away)", errno: ENODEV)
        }
        let count = buffer.count
        let n = buffer.withUnsafeMutableBytes { raw in read(dd, raw.baseAddress!, count) }
        if n < 0 {
            let e = errno
            if e == EINTR || e == EAGAIN { return 0 }
            throw Self.classify(e, operation: "read", adapter: configuration.adapter)
        }
        let now = Self.wallClock()
        do {
            let reports = try HCIEventParser.advertisingReports(inPacket: buffer[0..<n])
            for r in reports { body(Advertisement(timestamp: now, report: r)) }
            return reports.count
        } catch {
            malformedEvents += 1
            return 0
        }
    }

    /// Polls until `stop` is set, in slices of `pollMilliseconds`.
    public func run(until stop: StopFlag, pollMilliseconds: Int32 = 200, _ body: (Advertisement) -> Void)
        throws(HCIScannerError)
    {
        while !stop.isStopped { try poll(timeoutMilliseconds: pollMilliseconds, body) }
    }

    /// Disables scanning and restores the socket filter. The first error is thrown after both were attempted.
    public func stop() throws(HCIScannerError) {
        guard scanning, dd >= 0 else { return }
        scanning = false
        let disabled = hci_le_set_scan_enable(dd, 0x00, 0x00, configuration.commandTimeoutMilliseconds)
        let e = errno
        restoreFilter()
        if disabled < 0 { throw Self.classify(e, operation: "LE Set Scan Enable (disable)", adapter: configuration.adapter) }
    }

    /// Stops scanning and closes the socket now.
    public func close() throws(HCIScannerError) {
        defer {
            if dd >= 0 { hci_close_dev(dd); dd = -1 }
        }
        try stop()
    }

    private func restoreFilter() {
        guard var old = savedFilter else { return }
        _ = setsockopt(dd, SOL_HCI, HCI_FILTER, &old, socklen_t(MemoryLayout<hci_filter>.size))
        savedFilter = nil
    }

    static func wallClock() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}
