import SystemErrors
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Delivers outbox entries as NDJSON lines appended to a file (fsync'd before they count as delivered) or written
/// to standard output. A file rotates by size: before a write would take it past `rotateBytes`, PATH becomes
/// PATH.1, PATH.1 becomes PATH.2 … up to PATH.keep (the oldest beyond it is removed), and a new PATH starts. A
/// single batch larger than the bound goes whole into a fresh file.
///
/// The file only ever grows by whole, fsync'd batches: the sink keeps the length of its last acknowledged line, and
/// a write or fsync that fails (a full disk) cuts the file back to it before the failure is reported, so the retry
/// appends after a complete line, never after a fragment. Opening cuts a fragment a crash left behind the same way
/// (its entries were never acknowledged and are delivered again).
public final class NDJSONSink: NotificationSink {
    public let name: String
    let path: String
    let options: NDJSONOptions
    private let file: Mutex<File>
    /// Where deliveries write, one at a time, in the order they were handed over.
    private let io = DispatchQueue(label: "geotrigger-ndjson-sink")

    struct File {
        /// -1 while closed (a rotation that could not open the new file): the next delivery opens it.
        var fd: Int32
        /// The last good length: everything up to here is complete, fsync'd lines.
        var size: Int
        /// A failed write may have left bytes past `size` that could not be cut yet: the next delivery cuts them
        /// first. (Checking the length before every write was an `fstat` per delivery.)
        var mayHaveFragment = false
        /// Bytes already let go of from the page cache: everything synced, in whole pages.
        var released = 0
    }

    public init(path: String, name: String, options: NDJSONOptions = .init()) throws(DeliveryFailure) {
        self.name = name
        self.path = path
        self.options = options
        if path == "-" {
            file = Mutex(File(fd: STDOUT_FILENO, size: 0))
        } else {
            file = Mutex(try Self.openFile(path))
        }
    }

    deinit {
        let fd = file.withLock { $0.fd }
        if path != "-", fd >= 0 { close(fd) }
    }

    static func openFile(_ path: String) throws(DeliveryFailure) -> File {
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .retryable(reason: "cannot open \(path): \(errorText())", after: nil) }
        do throws(DeliveryFailure) {
            let size = try lastCompleteLine(fd, path: path)
            try truncate(fd, to: size, path: path)
            // A file just created must survive a crash too: its directory entry is made durable before any line
            // in it counts as delivered.
            syncDirectory(of: path)
            return File(fd: fd, size: size)
        } catch {
            close(fd)
            throw error
        }
    }

    /// Writes the lines in order; returns once they are durable (files) or handed to the OS (stdout). A failed
    /// write (a full disk) is retryable: the file is cut back to its last good length, the dispatcher tries again
    /// and nothing is lost meanwhile.
    public func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
        // On a thread of its own: the write and its fsync block, and a cooperative pool thread held for them is one
        // fewer for the service's requests meanwhile (two, on two cores).
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<Void, DeliveryFailure>, Never>) in
            io.async { c.resume(returning: Result { () throws(DeliveryFailure) in try self.append(entries) }) }
        }
        try result.get()
    }

    /// The lines appended and, for a file, synced.
    private func append(_ entries: [OutboxEntry]) throws(DeliveryFailure) {
        var bytes: [UInt8] = []
        for e in entries {
            bytes.append(contentsOf: e.json.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        if path == "-" {
            try Self.writeAll(STDOUT_FILENO, bytes, path: path)
            return
        }
        try file.withLock { (f: inout File) throws(DeliveryFailure) in
            if f.fd < 0 { f = try Self.openFile(path) }
            // A cut that failed earlier is retried before anything is appended.
            if f.mayHaveFragment {
                try Self.truncate(f.fd, to: f.size, path: path)
                f.mayHaveFragment = false
            }
            if options.rotateBytes > 0, f.size > 0, f.size + bytes.count > options.rotateBytes {
                try rotate(&f)
            }
            do throws(DeliveryFailure) {
                try Self.writeAll(f.fd, bytes, path: path)
                guard fsync(f.fd) == 0 else { throw .retryable(reason: "fsync of \(path) failed: \(Self.errorText())", after: nil) }
            } catch {
                // Cut the fragment now; if even that fails, the next delivery cuts it before writing.
                do throws(DeliveryFailure) { try Self.truncate(f.fd, to: f.size, path: path) } catch { f.mayHaveFragment = true }
                throw error
            }
            f.size += bytes.count
            // Synced lines are not read back by the service: give their pages back to the kernel, as the journal
            // does. Left cached, every batch lands on new page-cache pages, and copying into them was 3 % of
            // serve's CPU on `http_ingest.py` (a reader of the file reads it from disk instead).
            let end = f.size & ~4095
            if end > f.released {
                _ = posix_fadvise(f.fd, off_t(f.released), off_t(end - f.released), POSIX_FADV_DONTNEED)
                f.released = end
            }
        }
    }

    private func rotate(_ f: inout File) throws(DeliveryFailure) {
        unlink("\(path).\(options.keep)")
        if options.keep > 1 {
            for k in stride(from: options.keep - 1, through: 1, by: -1) { rename("\(path).\(k)", "\(path).\(k + 1)") }
        }
        guard rename(path, "\(path).1") == 0 else {
            throw .retryable(reason: "cannot rotate \(path): \(Self.errorText())", after: nil)
        }
        close(f.fd)
        // Until the new file is open, writes fail (retryably) rather than go to the rotated one.
        f.fd = -1
        f.size = 0
        f = try Self.openFile(path)
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(DeliveryFailure) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .retryable(reason: "write to \(path) failed: \(errorText())", after: nil)
            }
            offset += n
        }
    }

    /// Cuts the file to `size` when it is longer (a torn write); no-op otherwise.
    static func truncate(_ fd: Int32, to size: Int, path: String) throws(DeliveryFailure) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .retryable(reason: "cannot stat \(path): \(errorText())", after: nil) }
        guard Int(st.st_size) > size else { return }
        guard ftruncate(fd, off_t(size)) == 0, fsync(fd) == 0 else {
            throw .retryable(reason: "cannot cut \(path) back to its last complete line (\(size) bytes): \(errorText())", after: nil)
        }
    }

    /// The length up to and including the last newline: what a crash mid-write leaves after it is a fragment.
    static func lastCompleteLine(_ fd: Int32, path: String) throws(DeliveryFailure) -> Int {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .retryable(reason: "cannot stat \(path): \(errorText())", after: nil) }
        var end = Int(st.st_size)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while end > 0 {
            let start = max(0, end - buffer.count)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, end - start, off_t(start)) }
            guard n == end - start else { throw .retryable(reason: "cannot read \(path): \(errorText())", after: nil) }
            if let k = buffer[0..<n].lastIndex(of: UInt8(ascii: "\n")) { return start + k + 1 }
            end = start
        }
        return 0
    }

    /// fsync of the folder holding `path`, so a created or renamed file's name survives a crash. Best effort: some
    /// filesystems refuse it, and the data itself is already durable.
    static func syncDirectory(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func errorText() -> String {
        let code = errno
        return "\(SystemError.text(code)) (errno \(code))"
    }
}
