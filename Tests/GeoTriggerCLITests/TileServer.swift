#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestSupport

/// A tile server on loopback for the report's `--tiles` test: a real HTTP/1.1 listener on a port the kernel picks
/// (bound to port 0), answering every GET with a one-pixel PNG and remembering the paths asked for.
final class TileServer: Sendable {
    let port: Int
    private let fd: Int32
    private let paths = Mutex<[String]>([])

    static let pixel = [UInt8](Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    init() throws {
        (fd, port) = try LoopbackPort.bound(listening: 64)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The request targets seen so far, in arrival order.
    var requested: [String] { paths.withLock { $0 } }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // closed by stop()
            }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                request += buffer[0..<n]
            }
            let line = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self).split(separator: " ")
            if line.count >= 2 { paths.withLock { $0.append(String(line[1])) } }
            let head = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(Self.pixel.count)\r\nConnection: close\r\n\r\n"
            let response = Array(head.utf8) + Self.pixel
            _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
