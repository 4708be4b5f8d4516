import Journal
import Inputs
import Endpoints
import Delivery
import MQTT
import NIOCore
import TriggerEngine
import Cluster

/// What `geotrigger serve` was asked to do. Defaults are the documented ones.
public struct ServerConfiguration: Sendable {
    public var databasePath: String
    public var host: String
    /// 0 lets the system pick (tests).
    public var port: Int
    public var sinks: [SinkConfiguration]
    /// Bearer token clients must send; required when `host` is not a loopback address.
    public var token: String?
    /// Largest request body accepted, in bytes (requests, fixes and sightings alike).
    public var maximumBodyBytes: Int
    /// Origins allowed cross-origin (`--cors-origin`); empty: no CORS headers.
    public var corsOrigins: [String] = []
    public var clock: Clock
    /// Seconds the clock must be past a silent device's deadline (and its last input) before it fires it.
    public var allowedLateness: Double = TriggerEngine.Configuration.defaultWallLateness
    /// How far ahead of the clock a fix or sighting may be before it is rejected as `future`.
    public var maximumFuture: FutureBound = .clockDefault
    /// Forget a device this many seconds of the clock after its newest input (nil: never).
    public var deviceRetention: Double?
    /// Forgetting a device fires exits from the geofences it is inside (false: they end silently).
    public var deviceRetentionExits = false
    /// Serve the operator console at `/console`.
    public var console = true
    /// The console map's tile URL template (`{z}/{x}/{y}`) and the attribution it requires.
    public var consoleTiles: String?
    public var consoleTilesAttribution: String?
    /// Entries of each device's explain history (`TriggerEngine.Configuration.explainDepth`).
    public var explainDepth = 16
    /// Retries, bounds, webhook and NDJSON options for the outbox's delivery.
    public var delivery = DeliveryConfiguration()
    /// PEM certificate chain and private key: both set serves HTTPS only.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// `--regions FILE`: requests applied at start and on SIGHUP (`RegionsFile`).
    public var regionsFilePath: String?
    /// `--regions-id-property`: how the regions file's GeoJSON features are named.
    public var regionsGeoJSON = GeoJSONOptions()
    /// NDJSON streams read besides HTTP (standard input, TCP listeners).
    public var inputs: [InputConfiguration]
    /// Timeouts and the connection bound of the HTTP server.
    public var connections = ConnectionLimits()
    /// The journal's directory (segments and checkpoints); nil: the database path with `.journal` appended.
    public var journalPath: String?
    /// Seconds between checkpoints (while input arrives), and journal records after which one is taken sooner.
    public var checkpointInterval: Double = 60
    public var checkpointRecords = 100_000
    /// Fixes and sightings journaled after which a checkpoint is taken: bounds what a restart replays.
    public var checkpointInputs = 3_000_000
    /// Size at which a journal segment file is closed and the next begun.
    public var journalSegmentBytes = 64 << 20
    /// Start despite damage inside the journal or the newest checkpoint: keep what precedes it and say loudly
    /// what was skipped.
    public var recover = false
    /// When an input is acknowledged: after its fsync, or at once with the fsync an interval later (`JournalSync`).
    public var journalSync: JournalSync = .always
    /// Journal segments are preallocated (`Journal.Configuration.preallocate`); off for copy-on-write file systems.
    public var journalPreallocate = true
    /// With a `nats://` or `kafka://` journal: this instance's name, the input's partitions, the copies of every
    /// stream or topic, the lease TTL (JetStream) and the group's session timeout (Kafka) (docs/cluster.md).
    public var clusterInstance: String?
    public var clusterPartitions = 12
    public var clusterReplicas = 3
    public var clusterLeaseTTL: Double = 6
    public var clusterSessionTimeout: Double = 10

    /// The JetStream servers when the journal is `nats://HOST:PORT[,HOST:PORT…]`: this is then one instance of a
    /// scale-out deployment.
    public var clusterServers: [String]? { journalPath.flatMap(ClusterConfiguration.servers(fromJournal:)) }

    /// The deployment's log when the journal is `nats://…` or `kafka://…`, with its servers or brokers.
    public var clusterLog: (transport: ClusterConfiguration.Transport, servers: [String])? {
        guard let journal = journalPath else { return nil }
        if let servers = ClusterConfiguration.servers(fromJournal: journal) { return (.jetStream, servers) }
        if let brokers = ClusterConfiguration.brokers(fromJournal: journal) { return (.kafka, brokers) }
        return nil
    }

    /// The journal directory in use.
    public var effectiveJournalPath: String { journalPath ?? databasePath + ".journal" }

    public enum FutureBound: Sendable, Equatable {
        /// 10 minutes ahead of the clock, either clock: a service's input flows (unlike `replay`'s files, whose
        /// vehicles may be parked for weeks), and one client's far-future fix must not become everyone's time.
        case clockDefault
        case seconds(Double)
        case unbounded
    }

    /// The engine's settings for this configuration.
    public var engineConfiguration: TriggerEngine.Configuration {
        var e = TriggerEngine.Configuration(clock: clock == .wall ? .external : .eventTime)
        e.allowedLateness = allowedLateness
        e.idleDeviceExpiry = deviceRetention
        e.expiryExits = deviceRetentionExits
        e.keepsLastPosition = true
        e.tracksOccupants = true
        e.explainDepth = explainDepth
        switch maximumFuture {
        case .clockDefault: e.maximumFuture = TriggerEngine.Configuration.defaultWallFuture
        case .seconds(let s): e.maximumFuture = s
        case .unbounded: e.maximumFuture = nil
        }
        return e
    }

    /// SPEC §3 "Time".
    public enum Clock: String, Sendable, CaseIterable {
        /// Live: the clock is wall time, advanced every second, so the deadlines of devices that went silent fire
        /// (after the allowed lateness) even when no further input arrives. Fixes do not move it.
        case wall
        /// Replay: the clock is a watermark, the second-newest device's newest fix or sighting timestamp
        /// (docs/semantics.md "Time").
        case event
    }

    public init(databasePath: String = "./geotrigger.sqlite", host: String = "127.0.0.1", port: Int = 8080,
                sinks: [SinkConfiguration] = [], token: String? = nil, maximumBodyBytes: Int = 16 << 20,
                clock: Clock = .wall, tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil,
                inputs: [InputConfiguration] = []) {
        self.databasePath = databasePath
        self.host = host
        self.port = port
        self.sinks = sinks
        self.token = token
        self.maximumBodyBytes = maximumBodyBytes
        self.clock = clock
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsKeyPath = tlsKeyPath
        self.inputs = inputs
    }

    /// The address the API binds: `host` resolved the way the listener would (the first address), so the loopback
    /// check and the bind see the same address, whatever the name's text says.
    public func listenAddress() throws(ServerConfigurationError) -> SocketAddress {
        try Self.resolve(host, port: port, what: "the listen address")
    }

    static func resolve(_ host: String, port: Int, what: String) throws(ServerConfigurationError) -> SocketAddress {
        do { return try NetworkAddress.resolve(host, port: port, what: what) } catch { throw ServerConfigurationError(reason: error.reason) }
    }

    /// The token, unless it is blank (white space only counts as none: nobody could send it).
    var effectiveToken: String? {
        guard let token, !token.trimmingWhitespace.isEmpty else { return nil }
        return token
    }

    /// Refuses a configuration that would expose the API unauthenticated.
    public func validate() throws(ServerConfigurationError) {
        if let token, token.trimmingWhitespace.isEmpty, !token.isEmpty {
            throw ServerConfigurationError(reason: "the bearer token is blank (white space only): nobody could send it")
        }
        let address = try listenAddress()
        if !NetworkAddress.isLoopback(address), effectiveToken == nil {
            throw ServerConfigurationError(
                reason: "listening on \(host) (\(address.ipAddress ?? "?"), not loopback) needs a bearer token: set GEOTRIGGER_TOKEN or --token-file")
        }
        if maximumBodyBytes <= 0 { throw ServerConfigurationError(reason: "the body size limit must be positive") }
        if connections.headerTimeout <= .zero || connections.bodyTimeout <= .zero || connections.idleTimeout <= .zero {
            throw ServerConfigurationError(reason: "the HTTP header, body and idle timeouts must be positive")
        }
        if connections.maximumConnections < 1 { throw ServerConfigurationError(reason: "the HTTP connection limit must be at least 1") }
        do { try delivery.validate() } catch { throw ServerConfigurationError(reason: error.reason) }
        if Set(sinks.map(\.name)).count != sinks.count { throw ServerConfigurationError(reason: "a sink is configured twice") }
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw ServerConfigurationError(reason: "TLS needs both a certificate (--tls-certificate) and a key (--tls-key), or neither")
        }
        for input in inputs {
            // The stream inputs have no authentication of their own.
            if case .tcp(let host, let port, _) = input {
                let address = try Self.resolve(host, port: port, what: "the TCP input")
                if !NetworkAddress.isLoopback(address) {
                    throw ServerConfigurationError(reason: "the TCP input \(input.name) must listen on a loopback address (\(host) is \(address.ipAddress ?? "?")): it has no authentication (forward it with ssh or stunnel)")
                }
            }
        }
        if inputs.filter({ if case .stdin = $0 { true } else { false } }).count > 1 {
            throw ServerConfigurationError(reason: "standard input can be read by one --input only")
        }
    }
}

/// A sink the outbox delivers to.
public enum SinkConfiguration: Sendable, Hashable {
    /// NDJSON lines appended to a file, or written to standard output for `-`.
    case ndjson(path: String)
    /// HTTP POSTs to an http:// or https:// URL.
    case webhook(url: String)
    /// QoS 1 publishes to an MQTT broker (`mqtt://` or `mqtts://`).
    case mqtt(MQTTSinkSpec)

    /// From the command-line form `ndjson:PATH`, `ndjson:-`, `webhook:URL` or `mqtt[s]://…`; nil when the form is
    /// none of these.
    public init?(argument: String) throws(MQTTSinkSpecError) {
        if argument.hasPrefix("ndjson:"), argument.count > "ndjson:".count {
            self = .ndjson(path: String(argument.dropFirst("ndjson:".count)))
        } else if argument.hasPrefix("webhook:") {
            let url = String(argument.dropFirst("webhook:".count))
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > "https://".count else { return nil }
            self = .webhook(url: url)
        } else if argument.lowercased().hasPrefix("mqtt://") || argument.lowercased().hasPrefix("mqtts://") {
            self = .mqtt(try MQTTSinkSpec(parsing: argument))
        } else {
            return nil
        }
    }

    /// The name its cursor is stored under: stable across restarts, so delivery resumes where it stopped. An MQTT
    /// sink's name is its broker and topic template (`mqtt://user@host:1883/geotrigger/{device}/{event}`): never
    /// the password, and not the connection options, which may change without losing the cursor.
    public var name: String {
        switch self {
        case .ndjson(let path): "ndjson:\(path)"
        case .webhook(let url): "webhook:\(url)"
        case .mqtt(let spec): spec.name
        }
    }
}

public struct ServerConfigurationError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
