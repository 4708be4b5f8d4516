import SystemErrors
import Synchronization
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// `acknowledged.mark` beside the segments: the journal position before which every record was made durable and
/// may have been acknowledged, and the first position the journal still holds (segments before it were dropped
/// on purpose, after a checkpoint). It is written and synced after each group commit's fsync and before the waiters are
/// answered, so it never names a record a crash can take back, and it always covers every record anyone was told
/// is durable. At open it is what tells a torn tail (records past the mark: never acknowledged) from damage (a
/// record before it missing or unreadable).
///
/// Layout, 28 bytes, overwritten in place: magic (8), end position (UInt64 LE), first position (UInt64 LE), CRC-32C
/// of the first 24 bytes (UInt32 LE). A write this small within one sector is not torn by a crash.
final class AcknowledgedMark: Sendable {
    static let name = "acknowledged.mark"
    static let magic: [UInt8] = Array("GTJACK".utf8) + [0, 1]
    static let size = 28

    let path: String
    private let fd: FileDescriptor
    /// What the file holds: the end only moves forward (a rotation and the fsync thread both advance it).
    private let written: Mutex<(end: UInt64, first: UInt64, synced: Bool)>

    /// Opens (or creates) the file; `end` and `first` are what it holds now.
    init(directory: String, end: UInt64, first: UInt64) throws(JournalError) {
        path = directory + "/" + Self.name
        do {
            fd = try FileDescriptor.open(FilePath(path), .readWrite, options: [.create],
                                         permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw .io(operation: "open", path: directory + "/" + Self.name, reason: "\(error)")
        }
        written = Mutex((end, first, true))
    }

    deinit { try? fd.close() }

    /// The position in `directory`'s mark file: nil when there is none (a journal written before the mark
    /// existed, or a new one); `.damaged` when it cannot be read as one.
    static func read(directory: String) throws(JournalError) -> (end: UInt64, first: UInt64)? {
        let path = directory + "/" + name
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT { return nil }
            throw .io(operation: "stat", path: path, reason: SystemError.text())
        }
        let bytes = try JournalSystem.readAll(path)
        if bytes.isEmpty { return nil }  // created, never written: nothing was acknowledged through it
        guard bytes.count == size, Array(bytes[0..<8]) == magic else {
            throw .damaged(path: path, offset: 0, reason: "not an acknowledged-position mark (\(bytes.count) bytes, bad header)")
        }
        let crc = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }.littleEndian
        guard bytes.withUnsafeBytes({ CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<24])) }) == crc else {
            throw .damaged(path: path, offset: 24, reason: "checksum mismatch")
        }
        let end = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }.littleEndian
        let first = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) }.littleEndian
        return (end, first)
    }

    static func encode(end: UInt64, first: UInt64) -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: end.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: first.littleEndian) { bytes.append(contentsOf: $0) }
        let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Makes the mark name `position` as the end, durably (or, with `sync` false, written for the kernel to write
    /// back: under a sync interval), unless it names that or more already.
    func advance(to position: UInt64, sync: Bool = true) throws(JournalError) {
        try written.withLock { w throws(JournalError) in
            guard position > w.end || (sync && !w.synced) else { return }
            try store(end: max(position, w.end), first: w.first, sync: sync)
            w.end = max(position, w.end)
            w.synced = sync
        }
    }

    /// Records that the journal now starts at `first`: made durable before the segments before it are deleted.
    func drop(before first: UInt64) throws(JournalError) {
        try written.withLock { w throws(JournalError) in
            guard first > w.first else { return }
            try store(end: w.end, first: first)
            w.first = first
            w.synced = true
        }
    }

    /// Writes both values, even when they did not change (a new or rewritten file).
    func rewrite() throws(JournalError) {
        try written.withLock { w throws(JournalError) in
            try store(end: w.end, first: w.first)
            w.synced = true
        }
    }

    private func store(end: UInt64, first: UInt64, sync: Bool = true) throws(JournalError) {
        do { _ = try fd.writeAll(toAbsoluteOffset: 0, Self.encode(end: end, first: first)) } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
        if sync { try JournalSystem.fdatasync(fd, path: path) }
    }

    var end: UInt64 { written.withLock { $0.end } }
}
