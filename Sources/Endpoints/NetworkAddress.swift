import NIOCore

/// Resolving a host the way a listener or a client would, and telling whether an address is this machine's own.
public enum NetworkAddress {
    /// The first address `host` resolves to; `what` names the setting in the error.
    public static func resolve(_ host: String, port: Int, what: String) throws(EndpointError) -> SocketAddress {
        do {
            return try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw EndpointError(reason: "\(what) \(HostPort(host: host, port: port)) cannot be resolved: \(error)")
        }
    }

    /// Whether connections to `address` can only come from this machine: 127.0.0.0/8, ::1 or IPv4-mapped 127/8.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let ip = address.ipAddress else { return false }
        switch address {
        case .v4: return ip.hasPrefix("127.")
        case .v6: return ip == "::1" || ip.hasPrefix("::ffff:127.")
        default: return false
        }
    }
}
