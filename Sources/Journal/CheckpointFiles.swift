import SystemErrors
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Checkpoint files beside the journal segments: `<position>.checkpoint`, each the whole state as of the journal
/// position it names. A file is written under a temporary name, fsync'd and renamed, so a crash leaves the old set
/// intact; the newest `keep` files stay (an older one is the fallback when the newest is damaged).
///
/// Layout: magic (8 bytes), position (UInt64 LE), body length (UInt64 LE), CRC-32C of the body (UInt32 LE), body.
public struct CheckpointFiles: Sendable {
    static let magic: [UInt8] = Array("GTCKPT".utf8) + [0, 1]
    static let headerSize = 28
    static let suffix = ".checkpoint"

    public let directory: String
    public let keep: Int

    public init(directory: String, keep: Int = 2) {
        self.directory = directory
        self.keep = max(1, keep)
    }

    /// A checkpoint found on disk.
    public struct Entry: Sendable, Hashable {
        public var position: UInt64
        public var path: String
    }

    /// The checkpoint files, newest (highest position) first.
    public func list() throws(JournalError) -> [Entry] {
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw .io(operation: "opendir", path: directory, reason: SystemError.text())
        }
        defer { closedir(dir) }
        var out: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(Self.suffix), let p = UInt64(name.dropLast(Self.suffix.count)) else { continue }
            out.append(Entry(position: p, path: directory + "/" + name))
        }
        return out.sorted { $0.position > $1.position }
    }

    /// Writes a checkpoint durably, then deletes all but the newest `keep`. Returns the file's path.
    @discardableResult
    public func write(_ body: [UInt8], position: UInt64) throws(JournalError) -> String {
        let name = String(repeating: "0", count: max(0, 20 - String(position).count)) + String(position) + Self.suffix
        let path = directory + "/" + name
        let temporary = path + ".tmp"
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerSize + body.count)
        withUnsafeBytes(of: position.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(body.count).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: body.withUnsafeBytes { CRC32C.checksum($0) }.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: body)
        do {
            let fd = try FileDescriptor.open(FilePath(temporary), .writeOnly, options: [.create, .truncate],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try fd.closeAfter {
                _ = try fd.writeAll(bytes)
                try JournalSystem.fsync(fd, path: temporary)
            }
        } catch let e as JournalError {
            unlink(temporary)
            throw e
        } catch {
            unlink(temporary)
            throw .io(operation: "write", path: temporary, reason: "\(error)")
        }
        if rename(temporary, path) != 0 {
            throw .io(operation: "rename", path: temporary, reason: SystemError.text())
        }
        try JournalSystem.fsyncDirectory(directory)
        for old in try list().dropFirst(keep) { unlink(old.path) }
        return path
    }

    /// Reads and checks one checkpoint: its body, or `.damaged` with the file, offset and what is wrong.
    public func read(_ entry: Entry) throws(JournalError) -> [UInt8] {
        let bytes = try JournalSystem.readAll(entry.path)
        guard bytes.count >= Self.headerSize, Array(bytes[0..<8]) == Self.magic else {
            throw .damaged(path: entry.path, offset: 0, reason: "not a checkpoint file (bad header)")
        }
        let position = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }.littleEndian
        let length = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) }.littleEndian
        let crc = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }.littleEndian
        guard position == entry.position else {
            throw .damaged(path: entry.path, offset: 8, reason: "names position \(position), its file name says \(entry.position)")
        }
        guard UInt64(bytes.count - Self.headerSize) == length else {
            throw .damaged(path: entry.path, offset: 16, reason: "body of \(bytes.count - Self.headerSize) bytes, header says \(length)")
        }
        let body = Array(bytes[Self.headerSize...])
        guard body.withUnsafeBytes({ CRC32C.checksum($0) }) == crc else {
            throw .damaged(path: entry.path, offset: Int64(Self.headerSize), reason: "checksum mismatch")
        }
        return body
    }
}
