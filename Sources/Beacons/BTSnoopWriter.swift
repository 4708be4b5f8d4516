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
    public func append(_ data: some Collection<UInt8>, flags: UInt32, timestamp: Timestamp, drops: UInt32 = 0)
        throws(BTSnoopError)
    {
        guard !isClosed else { throw .closed }
        guard data.count <= Int(BTSnoopReader.maximumRecordLength) else { throw .recordTooLong(data.count) }
        put32(UInt32(data.count))
        put32(UInt32(data.count))
        put32(flags)
        put32(drops)
        let t = BTSnoopRecord.btsnoopTime(timestamp)
        put32(UInt32(truncatingIfNeeded: t >> 32))
        put32(UInt32(truncatingIfNeeded: t))
        bytes += data
        recordCount += 1
        if !inMemory, bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Appends an HCI event (event code first) received from the controller, framed for this file's datalink:
    /// monitor opcode 3 on `controllerIndex`, H4 type byte 0x04, or H1 flags "received event".
    public func appendEvent(_ event: some Collection<UInt8>, timestamp: Timestamp, controllerIndex: UInt16 = 0)
        throws(BTSnoopError)
    {
        switch datalink {
        case .linuxMonitor:
            try append(event, flags: UInt32(controllerIndex) << 16 | BTSnoopRecord.monitorEventOpcode, timestamp: timestamp)
        case .h4:
            var packet: [UInt8] = [HCIEventParser.eventPacketIndicator]
            packet += event
            try append(packet, flags: 0b11, timestamp: timestamp)
        case .h1:
            try append(event, flags: 0b11, timestamp: timestamp)
        }
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
