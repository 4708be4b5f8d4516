import SystemErrors
import Dispatch
import Synchronization
import Logging
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The file operations opening and recovery use: zeroing, truncating, writing whole files, moving damage aside.
extension Journal {
    /// Writes `count` zeros at `offset` of `path` and makes them durable.
    static func zero(_ path: String, from offset: Int64, count: Int) throws(JournalError) {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .writeOnly)
            try fd.closeAfter {
                _ = try fd.writeAll(toAbsoluteOffset: offset, [UInt8](repeating: 0, count: count))
                try JournalSystem.fsync(fd, path: path)
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
    }

    static func truncate(_ path: String, to size: Int64) throws(JournalError) {
        if Glibc.truncate(path, off_t(size)) != 0 {
            throw .io(operation: "truncate", path: path, reason: SystemError.text())
        }
    }

    /// Whether a segment file is what a crash during `rotate` leaves: no longer than a header, and either a prefix of
    /// the header it was being given or zeros (a size made durable before the data).
    static func isCutShortHeader(_ bytes: [UInt8], first: UInt64) -> Bool {
        bytes.count <= JournalSegment.headerSize && (bytes.allSatisfy { $0 == 0 } || JournalSegment.header(first).starts(with: bytes))
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(JournalError) {
        do {
            let fd = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try fd.closeAfter {
                _ = try fd.writeAll(bytes)
                try JournalSystem.fsync(fd, path: path)
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
    }

    static func moveAside(_ paths: [String], because reason: String, logger: Logger) throws(JournalError) -> [String] {
        var out: [String] = []
        for p in paths {
            let aside = p + ".damaged"
            if rename(p, aside) != 0 { throw .io(operation: "rename", path: p, reason: SystemError.text()) }
            out.append("\(p) moved to \(aside) (\(reason))")
            logger.critical("journal: file moved aside (--recover)", metadata: ["file": "\(p)", "moved": "\(aside)", "reason": "\(reason)"])
        }
        return out
    }
}
