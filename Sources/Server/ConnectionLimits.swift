/// What one HTTP client may hold: time to send a request's head and body, time a keep-alive connection may sit
/// idle, and how many connections are open at once. Defaults are the documented ones (docs/service.md).
public struct ConnectionLimits: Sendable {
    /// From the connection opening to the end of the first request's head.
    public var headerTimeout: Duration
    /// From a request's head to the end of its body.
    public var bodyTimeout: Duration
    /// After an answer, until the next request's head is complete.
    public var idleTimeout: Duration
    /// Connections open at once; beyond it new ones wait in the listen backlog. Kept below the descriptor limit so
    /// the database and the sinks always have descriptors.
    public var maximumConnections: Int

    public init(headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
                maximumConnections: Int = 512) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }
}
