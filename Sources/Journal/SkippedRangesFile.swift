#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// `skipped.ranges`: one line per range a recovery skipped, `FROM UNTIL reason`, appended and synced before the
/// journal takes a record after the gap. Text, so an operator can read what was lost with `cat`.
enum SkippedRangesFile {
    static let name = "skipped.ranges"

    static func read(directory: String) throws(JournalError) -> [SkippedRange] {
        let path = directory + "/" + name
        if access(path, F_OK) != 0 { return [] }
        let bytes = try JournalSystem.readAll(path)
        var out: [SkippedRange] = []
        var offset = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            defer { offset += line.count + 1 }
            if line.isEmpty { continue }
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, let from = UInt64(String(decoding: fields[0], as: UTF8.self)),
                  let until = UInt64(String(decoding: fields[1], as: UTF8.self)), from < until else {
                throw .damaged(path: path, offset: Int64(offset), reason: "not a skipped range (expected 'FROM UNTIL reason')")
            }
            out.append(SkippedRange(records: from..<until, reason: fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""))
        }
        return out
    }

    static func append(_ ranges: [SkippedRange], directory: String) throws(JournalError) {
        guard !ranges.isEmpty else { return }
        let path = directory + "/" + name
        var text = ""
        for r in ranges {
            let reason = r.reason.map { $0 == "\n" || $0 == "\r" ? " " : $0 }
            text += "\(r.records.lowerBound) \(r.records.upperBound) \(String(reason))\n"
        }
        do {
            let fd = try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .append],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
            try fd.closeAfter {
                _ = try fd.writeAll(Array(text.utf8))
                try JournalSystem.fsync(fd, path: path)
            }
        } catch let e as JournalError {
            throw e
        } catch {
            throw .io(operation: "write", path: path, reason: "\(error)")
        }
        try JournalSystem.fsyncDirectory(directory)
    }
}
