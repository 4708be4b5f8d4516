import NIOCore

/// What one HTTP client may hold: time to send a request's head and body, time a keep-alive connection may sit
/// idle, and how many connections are open at once. Defaults are the documented ones (docs/service.md).
public struct ConnectionLimits: Sendable {
    /// From the connection opening to the end of the first request's head.
    public var headerTimeout: Duration
    /// From a request's head to the end of its body.
    public var bodyTimeout: Duration
    /// After `bodyTimeout`, how long the request's handler has to answer 408 before the connection is closed
    /// regardless. Not a setting: tests that share the process's two pool threads with busy suites lengthen it.
    public var bodyTimeoutGrace: Duration = .seconds(2)
    /// After an answer, until the next request's head is complete.
    public var idleTimeout: Duration
    /// Connections open at once; beyond it new ones wait in the listen backlog. Kept below the descriptor limit so
    /// the database and the sinks always have descriptors.
    public var maximumConnections: Int
    /// Connections one client address may hold at once (0: no bound): one client's idle sockets leave the rest of
    /// `maximumConnections` to the others. Further connections from that address are closed at once.
    public var maximumConnectionsPerAddress: Int
    /// At a graceful shutdown, how long requests in flight may go on before their connections are closed: a client
    /// trickling a body must not hold the shutdown for its body timeout.
    public var drainTimeout: Duration
    /// Threads reading and writing the connections (swift-nio event loops); nil: one, or one per core with TLS.
    /// Requests are decoded and answered on Swift's pool, not on these threads: over plain HTTP one of them keeps
    /// up with the engine, and a second cost wakes and hand-offs (on `Tools/bench/http_ingest.py`, 2 cores,
    /// alternating six pairs: 1.59M against 1.50M fixes/s, 0.92 against 0.99 µs of CPU per fix). TLS encrypts on
    /// them, so it gets one per core.
    public var eventLoops: Int?

    public init(headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(60), idleTimeout: Duration = .seconds(60),
                maximumConnections: Int = 512, maximumConnectionsPerAddress: Int = 128, drainTimeout: Duration = .seconds(10),
                eventLoops: Int? = nil) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.drainTimeout = drainTimeout
        self.eventLoops = eventLoops
    }

    /// The event loops to start: `eventLoops`, else one, or one per core with TLS.
    public func eventLoopCount(tls: Bool) -> Int {
        eventLoops ?? (tls ? System.coreCount : 1)
    }
}
