import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback port, the tests' one raw client: for bytes no HTTP client would send (torn
/// bodies, bad chunk sizes, slow trickles, idle sockets) and, through `LoopbackHTTP`, for blocking exchanges.
public final class RawConnection: @unchecked Sendable {
    public let fd: Int32

    /// - Parameter source: the loopback address to connect from (any of 127/8), as another client would.
    /// - Parameter receiveBuffer: `SO_RCVBUF`, set before connecting (a client that stops reading then holds little).
    public init(port: Int, from source: String? = nil, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer.map(Int32.init) {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// False once the peer has closed (a write fails).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// The client is done sending (its body ends here, whatever Content-Length said).
    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Everything the server sends until it closes the connection or `timeout` passes; `closed` says which.
    /// Waits on a thread of its own: blocking the concurrency pool would starve the server under test.
    public func receive(timeout: Duration) async -> (text: String, closed: Bool) {
        await withCheckedContinuation { done in
            DispatchQueue.global().async { done.resume(returning: self.receiveBlocking(timeout: timeout)) }
        }
    }

    /// `receive` on the calling thread, for callers that are not async.
    public func receiveBlocking(timeout: Duration) -> (text: String, closed: Bool) {
        var out: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ContinuousClock.now < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let ms = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&p, 1, ms) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (String(decoding: out, as: UTF8.self), true) }
            out += buffer[0..<n]
        }
        return (String(decoding: out, as: UTF8.self), false)
    }

    /// Whether the server has closed the connection, waiting up to `timeout` for it.
    public func isClosed(within timeout: Duration) async -> Bool { await receive(timeout: timeout).closed }
}

extension String {
    /// The status code of an HTTP/1.1 answer's first line.
    public var httpStatus: Int? {
        guard hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(dropFirst(9).prefix(3))
    }
}
