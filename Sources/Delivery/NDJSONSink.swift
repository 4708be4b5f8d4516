#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Storage
import Synchronization

/// Delivers outbox entries as NDJSON lines appended to a file (fsync'd before they count as delivered) or written
/// to standard output. A file rotates by size: before a write would take it past `rotateBytes`, PATH becomes
/// PATH.1, PATH.1 becomes PATH.2 … up to PATH.keep (the oldest beyond it is removed), and a new PATH starts. A
/// single batch larger than the bound goes whole into a fresh file.
public final class NDJSONSink: NotificationSink {
    public let name: String
    let path: String
    let options: NDJSONOptions
    private let file: Mutex<File>

    struct File {
        var fd: Int32
        var size: Int
    }

    public init(path: String, name: String, options: NDJSONOptions = .init()) throws(DeliveryFailure) {
        self.name = name
        self.path = path
        self.options = options
        if path == "-" {
            file = Mutex(File(fd: STDOUT_FILENO, size: 0))
        } else {
            file = Mutex(try Self.openFile(path, sink: name))
        }
    }

    deinit {
        let fd = file.withLock { $0.fd }
        if path != "-" { close(fd) }
    }

    static func openFile(_ path: String, sink: String) throws(DeliveryFailure) -> File {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .retryable(reason: "cannot open \(path): errno \(errno)", after: nil) }
        var st = stat()
        let size = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
        return File(fd: fd, size: size)
    }

    /// Writes the lines in order; returns once they are durable (files) or handed to the OS (stdout). A failed
    /// write (a full disk) is retryable: the dispatcher tries again and nothing is lost meanwhile.
    public func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
        var bytes: [UInt8] = []
        for e in entries {
            bytes.append(contentsOf: e.json.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        try file.withLock { (f: inout File) throws(DeliveryFailure) in
            if path != "-", options.rotateBytes > 0, f.size > 0, f.size + bytes.count > options.rotateBytes {
                try rotate(&f)
            }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(f.fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .retryable(reason: "write to \(path) failed: errno \(errno)", after: nil)
                }
                offset += n
                f.size += n
            }
            if path != "-", fsync(f.fd) != 0 { throw .retryable(reason: "fsync of \(path) failed: errno \(errno)", after: nil) }
        }
    }

    private func rotate(_ f: inout File) throws(DeliveryFailure) {
        unlink("\(path).\(options.keep)")
        if options.keep > 1 {
            for k in stride(from: options.keep - 1, through: 1, by: -1) { rename("\(path).\(k)", "\(path).\(k + 1)") }
        }
        guard rename(path, "\(path).1") == 0 else {
            throw .retryable(reason: "cannot rotate \(path): errno \(errno)", after: nil)
        }
        close(f.fd)
        // Until the new file is open, writes fail (retryably) rather than go to the rotated one.
        f.fd = -1
        f = try Self.openFile(path, sink: name)
    }
}
