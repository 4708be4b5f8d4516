#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port the kernel just handed out (bound to port 0, read back, closed): for servers the tests start.
public enum LoopbackPort {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    public static func free() throws -> Int {
        let (fd, port) = try bound(listening: nil)
        close(fd)
        return port
    }

    /// A TCP socket bound to a loopback port the kernel picks (port 0), listening with `backlog` when given: the
    /// descriptor (the caller closes it) and the port.
    public static func bound(listening backlog: Int32?) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
            }
        }
        guard ok else {
            let reason = errno
            close(fd)
            throw Unavailable(description: "no free loopback port: errno \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A loopback port that refuses connections for as long as this value is alive: it stays bound (so no other
    /// test's server can take it, as one can take a port from `free()` that was only probed) and never listens.
    /// For sinks that must fail by being refused.
    public final class Refusing: Sendable {
        public let port: Int
        private let fd: Int32

        public init() throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let fd = fd
            let ok = withUnsafeMutablePointer(to: &address) { a in
                a.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard ok else {
                close(fd)
                throw Unavailable(description: "no free loopback port: errno \(errno)")
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }
}
