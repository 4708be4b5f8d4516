import TriggerEngine

/// Why the host refused a change. The HTTP layer maps these to problems; stream inputs log them.
public enum HostError: Error, Sendable, CustomStringConvertible {
    /// A request did not decode or the engine refused it (the path names where).
    case invalidRequest(RequestError)
    /// The change cannot be made durable now: the journal or the store failed (a full disk, an I/O error), or an
    /// earlier failure left memory ahead of the journal. Changes are refused until a restart.
    case unavailable(String)
    /// Shutdown began: new input is refused so the last batches can be made durable and delivered.
    case shuttingDown

    public var description: String {
        switch self {
        case .invalidRequest(let e): "invalid request: \(e)"
        case .unavailable(let reason): reason
        case .shuttingDown: "shutting down"
        }
    }
}
