import SystemErrors
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// One segment file: a 16-byte header (magic, then the position of its first record as UInt64 LE) and frames.
/// Named by that position, zero-padded, so a directory listing sorts in journal order.
///
/// Two kinds, told apart by the magic's last byte: an appended segment (version 1) grows with every record; a
/// preallocated one (version 2) was filled with zeros and made durable before its first record, so a record is
/// written over blocks the file system already allocated and its fsync flushes data only (measured here: 0.12 ms
/// per 76 KB record written and synced, against 0.18–0.21 ms appended; `Journal.prepareSpare`). In a preallocated
/// segment, zeros where the next frame would start are its end, not damage.
struct JournalSegment: Sendable, Hashable {
    static let magic: [UInt8] = Array("GTJRNL".utf8) + [0, 1]
    static let preallocatedMagic: [UInt8] = Array("GTJRNL".utf8) + [0, 2]
    static let headerSize = 16
    static let suffix = ".journal"

    var firstPosition: UInt64
    var path: String

    static func name(_ first: UInt64) -> String {
        let digits = String(first)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + suffix
    }

    static func header(_ first: UInt64, preallocated: Bool = false) -> [UInt8] {
        var h = preallocated ? preallocatedMagic : magic
        withUnsafeBytes(of: first.littleEndian) { h.append(contentsOf: $0) }
        return h
    }

    /// What a scan of one segment's bytes found.
    struct Scan {
        var records: [(position: UInt64, offset: Int, record: JournalRecord)] = []
        /// Where the last whole, valid frame ends.
        var validEnd = JournalSegment.headerSize
        /// The first bad frame, if any: its offset, what is wrong, and whether it can be a torn tail (nothing whole
        /// after it: a write cut short by a crash).
        var problem: (offset: Int, reason: String, tornTail: Bool)?
        /// A preallocated segment (zeros after its last frame).
        var preallocated = false
        /// Where the bytes that are not zeros end: in a preallocated segment, what a torn tail left ends here.
        var dataEnd = 0
    }

    /// Reads every frame of `bytes` (the whole file), stopping at the first bad one.
    static func scan(_ bytes: [UInt8], firstPosition: UInt64) -> Scan {
        var scan = Scan()
        bytes.withUnsafeBytes { b in
            scan.dataEnd = b.count
            let preallocated = b.count >= headerSize && Array(b[0..<8]) == preallocatedMagic
            guard b.count >= headerSize, preallocated || Array(b[0..<8]) == magic else {
                scan.problem = (0, "not a GeoTrigger journal segment (bad header)", b.count < headerSize)
                return
            }
            // The header names the segment's first record as the file name does: a file renamed (or a flipped
            // header) would otherwise give its records other positions.
            let named = b.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
            guard named == firstPosition else {
                scan.problem = (8, "the header names record \(named) as the first, the file name says \(firstPosition)", false)
                return
            }
            if preallocated {
                scan.preallocated = true
                scan.dataEnd = max(headerSize, endOfData(b))
            }
            var position = firstPosition
            var off = headerSize
            while off < b.count {
                let rest = b.count - off
                guard rest >= JournalFrame.headerSize else {
                    scan.problem = (off, "a frame header cut short (\(rest) bytes)", true)
                    return
                }
                let length = Int(JournalFrame.u32(b, off)), crc = JournalFrame.u32(b, off + 4)
                if length == 0 || length > JournalFrame.maximumBody {
                    if preallocated {
                        // Zeros from here on: the end. Else a header is torn when nothing but zeros follows it.
                        if off >= scan.dataEnd { return }
                        scan.problem = (off, "impossible frame length \(length)", off + JournalFrame.headerSize >= scan.dataEnd)
                        return
                    }
                    let zeros = b[off...].allSatisfy { $0 == 0 }
                    scan.problem = (off, zeros ? "zeros to the end of the file" : "impossible frame length \(length)", zeros)
                    return
                }
                guard rest >= JournalFrame.headerSize + length else {
                    scan.problem = (off, "a frame of \(length) bytes runs past the end of the file", true)
                    return
                }
                let body = UnsafeRawBufferPointer(rebasing: b[(off + 8)..<(off + 8 + length)])
                let end = off + 8 + length
                guard CRC32C.checksum(body) == crc else {
                    scan.problem = (off, "checksum mismatch", end == b.count || (preallocated && end >= scan.dataEnd))
                    return
                }
                scan.records.append((position, off, JournalRecord(kind: body[0], payload: Array(body[1...]))))
                position += 1
                off = end
                scan.validEnd = off
            }
        }
        return scan
    }

    /// One past the last byte of `b` that is not zero (0 if all are), eight bytes at a time: a preallocated
    /// segment is mostly zeros when a restart reads it.
    static func endOfData(_ b: UnsafeRawBufferPointer) -> Int {
        var end = b.count
        while end % 8 != 0, b[end - 1] == 0 { end -= 1 }
        if end % 8 == 0 {
            while end >= 8, b.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) == 0 { end -= 8 }
        }
        while end > 0, b[end - 1] == 0 { end -= 1 }
        return end
    }
}

/// The few system calls the journal needs beyond swift-system's FileDescriptor, with EINTR retried in one place.
enum JournalSystem {
    static func fsync(_ fd: FileDescriptor, path: String) throws(JournalError) {
        while Glibc.fsync(fd.rawValue) != 0 {
            if errno == EINTR { continue }
            throw .io(operation: "fsync", path: path, reason: SystemError.text())
        }
    }

    /// Makes the file's data durable, and of its metadata what reading the data needs (its size), not its times: a
    /// journal write changes the file's modification time, and an fsync then writes the inode as well, with a
    /// wait of its own, before the cache flush. The group commit's sync, as PostgreSQL syncs its WAL.
    static func fdatasync(_ fd: FileDescriptor, path: String) throws(JournalError) {
        while Glibc.fdatasync(fd.rawValue) != 0 {
            if errno == EINTR { continue }
            throw .io(operation: "fdatasync", path: path, reason: SystemError.text())
        }
    }

    /// Drops the clean page-cache pages of `[from, to)` (both 0: the whole file; advice: an error changes nothing
    /// that matters).
    static func releaseCache(_ fd: FileDescriptor, from: Int64, to: Int64) {
        _ = posix_fadvise(fd.rawValue, off_t(from), off_t(to - from), POSIX_FADV_DONTNEED)
    }

    /// Makes a new or renamed entry of `directory` durable.
    static func fsyncDirectory(_ directory: String) throws(JournalError) {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(FilePath(directory), .readOnly) } catch {
            throw .io(operation: "open", path: directory, reason: "\(error)")
        }
        defer { try? fd.close() }
        try fsync(fd, path: directory)
    }

    static func readAll(_ path: String) throws(JournalError) -> [UInt8] {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .readOnly)
            return try fd.closeAfter {
                let size = Int(try fd.seek(offset: 0, from: .end))
                var out = [UInt8](repeating: 0, count: size)
                var done = 0
                while done < size {
                    let n = try out.withUnsafeMutableBytes { try fd.read(fromAbsoluteOffset: Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...])) }
                    if n == 0 { break }
                    done += n
                }
                // What was read leaves the page cache: read ahead, a file is cached in large folios (256 KiB and
                // more), and a record written later into a cached folio dirties all of it, so its fsync writes the
                // whole folio back. Outside the cache, a write dirties one page.
                releaseCache(fd, from: 0, to: 0)
                return Array(out[0..<done])
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "read", path: path, reason: "\(error)")
        }
    }

    /// The segment files of `directory`, in journal order.
    static func segments(in directory: String) throws(JournalError) -> [JournalSegment] {
        guard let dir = opendir(directory) else {
            throw .io(operation: "opendir", path: directory, reason: SystemError.text())
        }
        defer { closedir(dir) }
        var out: [JournalSegment] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(JournalSegment.suffix), let first = UInt64(name.dropLast(JournalSegment.suffix.count)) else { continue }
            out.append(JournalSegment(firstPosition: first, path: directory + "/" + name))
        }
        return out.sorted { $0.firstPosition < $1.firstPosition }
    }
}
