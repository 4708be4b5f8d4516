#if canImport(Glibc)
import SystemErrors
import JSON
import Glibc
#endif
import TriggerEngine

/// Buffered NDJSON output to standard output or a file; one write per 256 KiB, or one per notification when
/// `flushesEachLine` (paced replay, watched live).
final class OutputSink {
    private var buffer: [UInt8] = []
    private let fd: Int32
    private var writer = JSONWriter(capacity: 1024)
    private(set) var lines: [String]? = nil
    let flushesEachLine: Bool

    struct Failure: Error, CustomStringConvertible { var description: String }

    init(path: String?, keepLines: Bool = false, flushesEachLine: Bool = false) throws {
        self.flushesEachLine = flushesEachLine
        if let path, path != "-" {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw Failure(description: "\(path): \(SystemError.text())") }
        } else {
            fd = 1
        }
        if keepLines { lines = [] }
        buffer.reserveCapacity(1 << 18)
    }

    func write(_ n: FiredNotification) {
        if lines != nil {
            writer.bytes.removeAll(keepingCapacity: true)
            n.writeJSON(to: &writer)
            lines!.append(String(decoding: writer.bytes, as: UTF8.self))
            writeLine(writer.bytes)
        } else {
            // Written straight onto the output buffer (the writer borrows it): no copy of each line.
            swap(&writer.bytes, &buffer)
            n.writeJSON(to: &writer)
            writer.bytes.append(10)
            swap(&writer.bytes, &buffer)
            if buffer.count >= 1 << 18 { flush() }
        }
        if flushesEachLine { flush() }
    }

    func writeLine(_ bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        buffer.append(10)
        if buffer.count >= 1 << 18 { flush() }
    }

    func flush() {
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 {
                if errno == EINTR { continue }
                break
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit {
        flush()
        if fd > 2 { close(fd) }
    }
}
