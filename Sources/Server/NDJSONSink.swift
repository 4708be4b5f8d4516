#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers outbox entries as NDJSON lines appended to a file (fsync'd before they count as delivered) or written
/// to standard output.
final class NDJSONSink: Sendable {
    let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool

    init(path: String, name: String) throws(SinkError) {
        self.name = name
        if path == "-" {
            fd = STDOUT_FILENO
            ownsDescriptor = false
        } else {
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw SinkError(sink: name, reason: "cannot open \(path): errno \(errno)") }
            ownsDescriptor = true
        }
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Writes the lines in order; returns once they are durable (files) or handed to the OS (stdout).
    func deliver(_ lines: [String]) throws(SinkError) {
        var bytes: [UInt8] = []
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SinkError(sink: name, reason: "write failed: errno \(errno)")
            }
            offset += n
        }
        if ownsDescriptor, fsync(fd) != 0 { throw SinkError(sink: name, reason: "fsync failed: errno \(errno)") }
    }
}

struct SinkError: Error, Sendable, CustomStringConvertible {
    var sink: String
    var reason: String
    var description: String { "sink \(sink): \(reason)" }
}
