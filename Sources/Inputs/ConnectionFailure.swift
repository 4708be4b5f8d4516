import NIOCore
import NIOPosix
import SystemErrors

/// Why an outgoing connection failed, as a log line says it: the system's reason ("connection refused"), not NIO's
/// error structure (`NIOConnectionError(… SingleConnectionFailure(… errno: 111))`).
enum ConnectionFailure {
    static func reason(_ error: any Error) -> String {
        if let e = error as? NIOConnectionError {
            // Every address tried failed; the first one's reason stands for them (usually they are the same).
            if let first = e.connectionErrors.first { return reason(first.error) }
            if e.dnsAError != nil || e.dnsAAAAError != nil { return "the host name cannot be resolved" }
            return "no address to connect to"
        }
        if let e = error as? IOError { return lowercasedFirst(SystemError.text(e.errnoCode)) }
        if case ChannelError.connectTimeout(let t) = error { return "no answer within \(seconds(t))" }
        if let e = error as? ChannelError, e == .eof || e == .ioOnClosedChannel { return "the connection was closed" }
        return "\(error)"
    }

    /// `0.5 s`, `30 s`.
    static func seconds(_ t: TimeAmount) -> String { seconds(Double(t.nanoseconds) / 1e9) }

    static func seconds(_ d: Duration) -> String {
        seconds(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }

    private static func seconds(_ s: Double) -> String {
        let rounded = (s * 10).rounded() / 10
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + " s"
    }

    private static func lowercasedFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.lowercased() + s.dropFirst()
    }
}
