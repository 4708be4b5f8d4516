/// Why the cluster could not take an input or a request change; the HTTP layer maps these to problems.
public enum ClusterError: Error, Sendable, CustomStringConvertible {
    /// The JetStream cluster did not store it (no quorum, no connection): retry.
    case unavailable(String)
    /// The input itself is wrong.
    case invalid(String)

    public var description: String {
        switch self {
        case .unavailable(let s): "unavailable: \(s)"
        case .invalid(let s): "invalid: \(s)"
        }
    }
}
