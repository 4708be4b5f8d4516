#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TriggerEngine

/// Writes btsnoop version 1 files: to a path (buffered, 64 KiB writes) or to memory (`bytes`), for tests and for the
/// benchmark's generated captures. Owns its file descriptor; `close()` flushes and reports errors, `deinit` makes a
/// best-effort flush and closes.
public final class BTSnoopWriter {
    public let datalink: BTSnoopDatalink
    /// In-memory mode: everything written so far. File mode: the bytes not yet flushed.
    public private(set) var bytes: [UInt8] = []
    public private(set) var recordCount = 0

    private var fd: Int32
    private let inMemory: Bool
    private var isClosed = false
    private static let flushThreshold = 1 << 16

    /// Writes into `bytes`.
    public init(datalink: BTSnoopDatalink) {
        self.datalink = datalink
        self.fd = -1
        self.inMemory = true
        writeHeader()
    }

    /// Creates or truncates the file at `path`.
    public init(path: String, datalink: BTSnoopDatalink) throws(BTSnoopError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        self.datalink = datalink
        self.fd = fd
        self.inMemory = false
        writeHeader()
    }

    deinit {
        if !inMemory, !isClosed { try? flush() }
        if fd >= 0 { closeDescriptor(fd) }
    }

    private func writeHeader() {
        bytes += BTSnoopReader.magic
        put32(1)
        put32(datalink.rawValue)
    }

    /// Appends one record with explicit flags; `data` is written as is.
    public func append(_ data: ArraySlice<UInt8>, flags: UInt32, timestamp: Timestamp, drops: UInt32 = 0)
        throws(BTSnoopError)
    {
        try append(prefix: nil, data, flags: flags, timestamp: timestamp, drops: drops)
    }

    public func append(_ data: [UInt8], flags: UInt32, timestamp: Timestamp, drops: UInt32 = 0) throws(BTSnoopError) {
        try append(prefix: nil, data[...], flags: flags, timestamp: timestamp, drops: drops)
    }

    /// Appends an HCI event (event code first) received from the controller, framed for this file's datalink:
    /// monitor opcode 3 on `controllerIndex`, H4 type byte 0x04, or H1 flags "received event".
    public func appendEvent(_ event: ArraySlice<UInt8>, timestamp: Timestamp, controllerIndex: UInt16 = 0)
        throws(BTSnoopError)
    {
        switch datalink {
        case .linuxMonitor:
            try append(prefix: nil, event, flags: UInt32(controllerIndex) << 16 | BTSnoopRecord.monitorEventOpcode,
                       timestamp: timestamp, drops: 0)
        case .h4:
            try append(prefix: HCIEventParser.eventPacketIndicator, event, flags: 0b11, timestamp: timestamp, drops: 0)
        case .h1:
            try append(prefix: nil, event, flags: 0b11, timestamp: timestamp, drops: 0)
        }
    }

    public func appendEvent(_ event: [UInt8], timestamp: Timestamp, controllerIndex: UInt16 = 0) throws(BTSnoopError) {
        try appendEvent(event[...], timestamp: timestamp, controllerIndex: controllerIndex)
    }

    /// Concrete slice types rather than `some Collection`: a generic entry point is not specialised across the module
    /// boundary, which made writing the benchmark's million records several times slower.
    private func append(prefix: UInt8?, _ data: ArraySlice<UInt8>, flags: UInt32, timestamp: Timestamp, drops: UInt32)
        throws(BTSnoopError)
    {
        guard !isClosed else { throw .closed }
        let length = data.count + (prefix == nil ? 0 : 1)
        guard length <= Int(BTSnoopReader.maximumRecordLength) else { throw .recordTooLong(length) }
        put32(UInt32(length))
        put32(UInt32(length))
        put32(flags)
        put32(drops)
        let t = BTSnoopRecord.btsnoopTime(timestamp)
        put32(UInt32(truncatingIfNeeded: t >> 32))
        put32(UInt32(truncatingIfNeeded: t))
        if let prefix { bytes.append(prefix) }
        bytes.append(contentsOf: data)
        recordCount += 1
        if !inMemory, bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Writes buffered bytes to the file (no-op in memory).
    public func flush() throws(BTSnoopError) {
        guard !inMemory, fd >= 0 else { return }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + written, raw.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "write", errno: errno)
            }
            written += n
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file. The writer accepts no more records.
    public func close() throws(BTSnoopError) {
        guard !isClosed else { return }
        defer {
            isClosed = true
            if fd >= 0 { closeDescriptor(fd); fd = -1 }
        }
        try flush()
    }

    private func put32(_ v: UInt32) {
        // Byte by byte: no temporary array per field on the million-record path.
        bytes.append(UInt8(v >> 24))
        bytes.append(UInt8(v >> 16 & 0xFF))
        bytes.append(UInt8(v >> 8 & 0xFF))
        bytes.append(UInt8(v & 0xFF))
    }
}
