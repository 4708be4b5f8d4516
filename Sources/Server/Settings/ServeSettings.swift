import Journal
import Inputs
import Endpoints
import Cluster
import JSON
import Configuration
import Delivery
import Logging
import TriggerEngine

/// `geotrigger serve`'s configuration, read with swift-configuration from three layers; the first that has a
/// setting wins: command-line flags, then `GEOTRIGGER_*` environment variables, then the JSON file given by
/// `--config` (or `GEOTRIGGER_CONFIG`), then the defaults. Each layer is asked on its own, so a bad value is
/// reported with the flag, variable or file key it came from.
public enum ServeSettings {
    public static let all: [ServeSetting] = [
        .init("database", flag: "database", .string, default: "./geotrigger.sqlite", help: "SQLite database file (created if missing)."),
        .init("regions", flag: "regions", .string, default: nil,
              help: "Requests file (a JSON array of requests, or GeoJSON) applied at start and again on SIGHUP (systemctl reload): new identifiers added, changed ones replaced, unchanged ones left alone, ones the file added and no longer lists removed."),
        .init("listen", flag: "listen", .string, default: "127.0.0.1:8080",
              help: "Address to listen on, HOST:PORT or [IPv6]:PORT; port 0 picks a free one (logged). A non-loopback address needs a token."),
        .init("regionsIdProperty", flag: "regions-id-property", .string, default: nil,
              help: "GeoJSON in the regions file: the feature property that names a feature without properties.identifier (e.g. QGIS's fid); without it, the feature's id, else an identifier derived from its geometry and name."),
        .init("journal", flag: "journal", .string, default: "DATABASE.journal",
              help: "Directory of the journal (every accepted input, fsync'd before it is acknowledged) and its checkpoints; default: the database path with .journal appended. Or nats://HOST:PORT[,HOST:PORT…]: run as one instance of a scale-out deployment on that JetStream cluster; or kafka://HOST:PORT[,HOST:PORT…]: the same on that Kafka cluster (docs/cluster.md)."),
        .init("cluster.instance", flag: "instance", .string, default: "HOSTNAME-PID",
              help: "With a nats:// or kafka:// journal: this instance's name in partition leases and the consumer group, unique in the deployment; default: the host name and process id."),
        .init("cluster.partitions", flag: "partitions", .integer, default: "12",
              help: "With a nats:// or kafka:// journal: partitions of the input (devices go to fnv1a32(device) % P on JetStream, to the Java client's murmur2 partition on Kafka); every instance must say the same."),
        .init("cluster.replicas", flag: "replicas", .integer, default: "3",
              help: "With a nats:// journal: copies JetStream keeps of every stream and bucket (1, 3 or 5, at most the servers). With kafka://: the replication factor of the topics an instance creates."),
        .init("cluster.leaseTTL", flag: "lease-ttl", .number, default: "6",
              help: "With a nats:// journal: seconds after which a silent instance's partitions are taken over."),
        .init("cluster.sessionTimeout", flag: "session-timeout", .number, default: "10",
              help: "With a kafka:// journal: the consumer group's session.timeout.ms, in seconds: a silent instance leaves the group and its partitions are assigned again after this (the broker bounds it, 6 to 300 s by default)."),
        .init("journal.segmentBytes", flag: "journal-segment-bytes", .integer, default: "67108864",
              help: "The largest journal segment: a file is closed and a new one started once it would grow past this many bytes. Preallocated segments are sized to the input rate (about ten minutes of it) between 1 MiB and this."),
        .init("journal.sync", flag: "sync", .string, default: "always",
              help: "When an input is acknowledged: always (after the fsync that makes it durable) or interval:DURATION (e.g. interval:1s: at once, the fsync at most that much later; a killed process loses nothing, a power cut up to DURATION of acknowledged inputs; far fewer disk writes on SD cards). docs/service.md, Durability."),
        .init("checkpoint.interval", flag: "checkpoint-interval", .number, default: "60",
              help: "Seconds between checkpoints of the engine's state while input arrives; a restart replays the journal after the newest."),
        .init("checkpoint.records", flag: "checkpoint-records", .integer, default: "100000",
              help: "Journal records (batches) after which a checkpoint is taken before the interval is up."),
        .init("checkpoint.inputs", flag: "checkpoint-inputs", .integer, default: "3000000",
              help: "Fixes and sightings journaled after which a checkpoint is taken before the interval is up: a restart replays about this many (~1 s per 2 million on one core), so this bounds the restart time under any load."),
        .init("sink", flag: "sink", .strings, default: nil,
              help: "Where fired notifications go: ndjson:PATH, ndjson:- for standard output, webhook:URL (http or https), or mqtt[s]://[USER[:PASSWORD]@]HOST[:PORT]/TOPIC-TEMPLATE[?OPTIONS] (QoS 1; docs/service.md). Repeatable."),
        .init("input", flag: "input", .strings, default: nil,
              help: "An input besides HTTP: NDJSON from [fixes:|sightings:]stdin or [fixes:|sightings:]tcp:HOST:PORT (loopback only), a gpsd daemon's fixes from gpsd:HOST:PORT[?device=NAME] (reconnects with backoff), or an MQTT subscription, mqtt[s]://HOST:PORT/TOPIC-FILTER (OwnTracks or NDJSON payloads, persistent session). Repeatable."),
        .init("bluetooth", flag: "bluetooth", .string, default: nil,
              help: "Scan with this BlueZ adapter (hci0, or an index) and evaluate its beacon sightings (see --backend)."),
        .init("bluetoothBackend", flag: "backend", .string, default: "auto",
              help: "How --bluetooth reaches the adapter: dbus (through bluetoothd, beside its other clients; the bus policy must allow the user), hci (raw HCI socket: needs CAP_NET_RAW and an adapter no one else scans with), or auto: dbus when org.bluez is on the system bus, else hci."),
        .init("token", flag: nil, .string, default: nil, secret: true,
              help: "Bearer token: an admin credential, beside the scoped ones of `geotrigger token`; required on a non-loopback address. Environment or file only."),
        .init("tokenFile", flag: "token-file", .string, default: nil, help: "File holding the bearer token, an admin credential (overrides GEOTRIGGER_TOKEN)."),
        .init("maxBodyBytes", flag: "max-body-bytes", .integer, default: "16777216", help: "Largest request body accepted, in bytes."),
        .init("http.headerTimeout", flag: "http-header-timeout", .number, default: "10",
              help: "Seconds a new connection has to send a complete request head; then it is closed."),
        .init("http.bodyTimeout", flag: "http-body-timeout", .number, default: "60",
              help: "Seconds a request's body may take after its head; then it is answered 408."),
        .init("http.idleTimeout", flag: "http-idle-timeout", .number, default: "60",
              help: "Seconds a keep-alive connection may wait for its next request; then it is closed."),
        .init("http.maxConnections", flag: "http-max-connections", .integer, default: "512",
              help: "HTTP connections open at once; more wait in the listen backlog until one closes."),
        .init("http.maxConnectionsPerAddress", flag: "http-max-connections-per-address", .integer, default: "128",
              help: "HTTP connections one client address may hold at once (0: no bound); further ones from it are closed at once. Behind a reverse proxy every client has its address: raise it or use 0."),
        .init("http.drainTimeout", flag: "http-drain-timeout", .number, default: "10",
              help: "Seconds after SIGTERM that requests in flight may go on; connections still open then are closed."),
        .init("http.eventLoops", flag: "http-event-loops", .integer, default: "1 (one per core with TLS)",
              help: "Threads reading and writing HTTP connections (requests are decoded elsewhere); default: 1, or one per core with TLS."),
        .init("tls.certificate", flag: "tls-certificate", .string, default: nil,
              help: "PEM certificate chain: with --tls-key, serve HTTPS only."),
        .init("tls.key", flag: "tls-key", .string, default: nil, help: "PEM private key of --tls-certificate."),
        .init("clock", flag: "clock", .string, default: "wall",
              help: "wall (live: deadlines fire on wall time) or event (replay: time is the inputs' timestamps, the watermark the second-newest device's; docs/semantics.md \"Time\")."),
        .init("allowedLateness", flag: "allowed-lateness", .number, default: "60",
              help: "Seconds the clock must be past a silent device's dwell or beacon-exit deadline (and past its last input) before it fires it; a device's own later input always settles its deadlines itself (docs/semantics.md \"Time\")."),
        .init("maxFuture", flag: "max-future", .number, default: "600",
              help: "A fix or sighting more than this many seconds ahead of the clock is rejected as future; 0 turns the check off (either clock; with --clock event ahead of both the watermark and the device's own newest input)."),
        .init("deviceRetention", flag: "device-retention", .string, default: nil,
              help: "Forget a device once the clock is this long past its newest fix or sighting (a DURATION: seconds, or a number with s, m, h or d, as 30d), so memory and checkpoints hold only devices that still report; one with a pending dwell or beacon exit is kept until that is settled. Default: keep every device."),
        .init("deviceRetentionExits", flag: "device-retention-exits", .string, default: "none",
              help: "What forgetting a device does to the geofences it is inside: none (they end silently; if it reports again it starts unknown, as a new device) or exit (an exit notification where the request has notifyOnExit, at the moment it had been silent for the retention, from its newest fix)."),
        .init("logLevel", flag: "log-level", .string, default: "info",
              help: "Log level: trace, debug, info, notice, warning, error, critical. Logs go to standard error."),
        .init("logFormat", flag: "log-format", .string, default: "text",
              help: "text (the message, then key=value pairs; no timestamp under systemd, whose journal adds one) or json (one object per line: time, level, label, message and the pairs)."),
        // Delivery (docs/service.md "Delivery").
        .init("webhook.batch", flag: "webhook-batch", .integer, default: "1",
              help: "Webhook: notifications per POST; 1 posts one JSON object, more post JSON arrays (of one or more devices, each device's in order)."),
        .init("webhook.secretFile", flag: "webhook-secret-file", .string, default: nil,
              help: "Webhook: file holding the HMAC-SHA256 secret; every POST is then signed in the signature header."),
        .init("webhook.signatureHeader", flag: "webhook-signature-header", .string, default: "X-GeoTrigger-Signature",
              help: "Webhook: header carrying the signature, as sha256=HEX over the body."),
        .init("webhook.timeout", flag: "webhook-timeout", .number, default: "10", help: "Webhook: seconds a request may take, connecting included."),
        .init("webhook.concurrency", flag: "webhook-concurrency", .integer, default: "8",
              help: "Webhook: devices delivered at once (requests in flight); each device's notifications stay in order."),
        .init("retry.initial", flag: "retry-initial", .number, default: "0.5",
              help: "Seconds before the first retry of a failed delivery; doubles per attempt, with jitter."),
        .init("retry.maximum", flag: "retry-max", .number, default: "60",
              help: "Longest wait between retries, in seconds (a peer's Retry-After is honoured up to 600 s)."),
        .init("outbox.maxEntries", flag: "outbox-max-entries", .integer, default: "1000000",
              help: "Outbox bound: undelivered notifications at which ingest is refused with 503 (warns from 80 %)."),
        .init("outbox.maxAge", flag: "outbox-max-age", .number, default: "604800",
              help: "Outbox bound: age in seconds of the oldest undelivered notification at which ingest is refused."),
        .init("ndjson.rotateBytes", flag: "ndjson-rotate-bytes", .integer, default: "0",
              help: "NDJSON file sinks: rotate before a file would exceed this many bytes (0: never)."),
        .init("ndjson.keep", flag: "ndjson-keep", .integer, default: "5", help: "NDJSON file sinks: rotated files kept (PATH.1 newest … PATH.N)."),
        .init("ndjson.linger", flag: "ndjson-linger", .number, default: "0.005",
              help: "NDJSON file sinks: seconds a batch that is not full waits after the previous write began, so under load one write and fsync carry more notifications (0: write at once; an idle sink never waits)."),
    ]

    /// The environment variable naming the configuration file (the `--config` flag wins over it).
    public static let configFileVariable = "GEOTRIGGER_CONFIG"

    /// Everything `serve` needs, resolved.
    public struct Resolved: Sendable {
        public var configuration: ServerConfiguration
        public var logLevel: Logger.Level
        public var logFormat: LogFormat
        public var bluetoothAdapter: String?
        /// `auto`, `dbus` or `hci`, checked by the executable that knows the backends.
        public var bluetoothBackend: String
        /// Where each set value came from (`flag --listen`, `environment GEOTRIGGER_LISTEN`, `file x.json key listen`,
        /// `default`), for the startup log.
        public var origins: [String: String]
    }

    /// A value the command line gave.
    public enum FlagValue: Sendable {
        case string(String)
        case integer(Int)
        case number(Double)
        case strings([String])
    }

    /// Resolves every setting.
    /// - Parameters:
    ///   - flags: by setting key, only the flags given.
    ///   - environment: the process environment (tests pass their own).
    ///   - configFile: `--config`; else `GEOTRIGGER_CONFIG` from `environment`.
    public static func resolve(flags: [String: FlagValue], environment: [String: String], configFile: String?) async throws(ServerConfigurationError) -> Resolved {
        var layers: [(name: String, provider: any ConfigProvider)] = []
        var values: [String: ConfigContent] = [:]
        for (key, value) in flags {
            switch value {
            case .string(let s): values[key] = .string(s)
            case .integer(let n): values[key] = .int(n)
            case .number(let d): values[key] = .double(d)
            case .strings(let list): values[key] = .stringArray(list)
            }
        }
        layers.append(("flag", InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: values.map {
            (AbsoluteConfigKey(ConfigKey($0.key)), ConfigValue($0.value, isSecret: false))
        }))))
        let secrets = Set(all.filter(\.isSecret).map(\.environmentVariable))
        layers.append(("environment", EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: .specific(secrets))
            .prefixKeys(with: "geotrigger")))
        if let path = configFile ?? environment[configFileVariable] {
            layers.append(("file \(path)", try await fileProvider(path)))
        }

        var resolved: [String: (value: ConfigContent, origin: String)] = [:]
        for setting in all {
            if let found = try lookUp(setting, in: layers) { resolved[setting.key] = found }
        }
        return try build(resolved)
    }

    /// The JSON file's provider, after checking that it names no unknown setting (a typo must not pass silently).
    static func fileProvider(_ path: String) async throws(ServerConfigurationError) -> any ConfigProvider {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch { throw ServerConfigurationError(reason: "configuration file \(path): \(error)") }
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw ServerConfigurationError(reason: "configuration file \(path) is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else {
            throw ServerConfigurationError(reason: "configuration file \(path): expected a JSON object of settings, found \(json.kindName)")
        }
        try checkKeys(object, prefix: "", file: path)
        do {
            let reader = ConfigReader(provider: InMemoryProvider(values: ["filePath": ConfigValue(.string(path), isSecret: false)]))
            return try await FileProvider<JSONSnapshot>(config: reader)
        } catch {
            throw ServerConfigurationError(reason: "configuration file \(path): \(error)")
        }
    }

    private static func checkKeys(_ object: [(key: String, value: JSONValue)], prefix: String, file: String) throws(ServerConfigurationError) {
        let known = Set(all.map(\.key))
        for (key, value) in object {
            let path = prefix + key
            if known.contains(path) { continue }
            if let nested = value.objectValue, known.contains(where: { $0.hasPrefix(path + ".") }) {
                try checkKeys(nested, prefix: path + ".", file: file)
                continue
            }
            throw ServerConfigurationError(reason: "configuration file \(file): unknown setting '\(path)' (known: \(all.map(\.key).joined(separator: ", ")))")
        }
    }

    /// The first layer's value of `setting`; an error if that layer has one of the wrong type.
    static func lookUp(_ setting: ServeSetting, in layers: [(name: String, provider: any ConfigProvider)]) throws(ServerConfigurationError) -> (value: ConfigContent, origin: String)? {
        let type: ConfigType = switch setting.kind {
        case .string: .string
        case .integer: .int
        case .number: .double
        case .strings: .stringArray
        }
        for layer in layers {
            let origin = switch layer.name {
            case "flag": "flag --\(setting.flag ?? setting.key)"
            case "environment": "environment \(setting.environmentVariable)"
            default: "\(layer.name) key \(setting.key)"
            }
            let key = AbsoluteConfigKey(ConfigKey(setting.key))
            do {
                if let value = try layer.provider.value(forKey: key, type: type).value {
                    return (value.content, origin)
                }
            } catch {
                // A number setting written as an integer (`"retry.initial": 1` in the file) is still a number.
                if setting.kind == .number, let value = try? layer.provider.value(forKey: key, type: .int).value {
                    return (value.content, origin)
                }
                let expected = switch setting.kind {
                case .string: "a string"
                case .integer: "an integer"
                case .number: "a number"
                case .strings: "a list of strings"
                }
                throw ServerConfigurationError(reason: "\(origin): \(setting.key) must be \(expected) (\(error))")
            }
        }
        return nil
    }

    static func build(_ values: [String: (value: ConfigContent, origin: String)]) throws(ServerConfigurationError) -> Resolved {
        func string(_ key: String) -> String? { if case .string(let s)? = values[key]?.value { s } else { nil } }
        func strings(_ key: String) -> [String] {
            switch values[key]?.value {
            case .stringArray(let list)?: list
            case .string(let s)?: [s]
            default: []
            }
        }
        func origin(_ key: String) -> String { values[key]?.origin ?? "default" }
        func fail(_ key: String, _ reason: String) -> ServerConfigurationError {
            ServerConfigurationError(reason: "\(origin(key)): \(reason)")
        }

        var c = ServerConfiguration()
        if let database = string("database") {
            guard !database.isEmpty else { throw fail("database", "the database path is empty") }
            c.databasePath = database
        }
        if let journal = string("journal") {
            guard !journal.isEmpty else { throw fail("journal", "the journal path is empty") }
            c.journalPath = journal
        }
        if let regions = string("regions") {
            guard !regions.isEmpty else { throw fail("regions", "the regions file path is empty") }
            c.regionsFilePath = regions
        }
        if let property = string("regionsIdProperty") {
            guard !property.isEmpty else { throw fail("regionsIdProperty", "the property name is empty") }
            c.regionsGeoJSON.idProperty = property
        }
        if let interval = try Self.seconds("checkpoint.interval", values, fail: fail) { c.checkpointInterval = interval / .seconds(1) }
        if let journal = c.journalPath, journal.hasPrefix("nats://"), c.clusterServers == nil {
            throw fail("journal", "expected nats://HOST:PORT[,HOST:PORT…], got '\(journal)'")
        }
        if let journal = c.journalPath, journal.hasPrefix("kafka://"), ClusterConfiguration.brokers(fromJournal: journal) == nil {
            throw fail("journal", "expected kafka://HOST:PORT[,HOST:PORT…], got '\(journal)'")
        }
        if let instance = string("cluster.instance") {
            guard !instance.isEmpty, instance.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw fail("cluster.instance", "an instance name is letters, digits, '-', '_' and '.', got '\(instance)'")
            }
            c.clusterInstance = instance
        }
        if case .int(let p)? = values["cluster.partitions"]?.value {
            guard (1...4096).contains(p) else { throw fail("cluster.partitions", "must be 1…4096, got \(p)") }
            c.clusterPartitions = p
        }
        if case .int(let r)? = values["cluster.replicas"]?.value {
            if c.clusterLog?.transport == .kafka {
                guard r >= 1 else { throw fail("cluster.replicas", "must be at least 1, got \(r)") }
            } else {
                guard [1, 3, 5].contains(r) else { throw fail("cluster.replicas", "must be 1, 3 or 5, got \(r)") }
            }
            c.clusterReplicas = r
        }
        if let ttl = try Self.seconds("cluster.leaseTTL", values, fail: fail) {
            guard ttl >= .seconds(1) else { throw fail("cluster.leaseTTL", "must be at least 1 second") }
            c.clusterLeaseTTL = ttl / .seconds(1)
        }
        if let session = try Self.seconds("cluster.sessionTimeout", values, fail: fail) {
            guard session >= .seconds(1) else { throw fail("cluster.sessionTimeout", "must be at least 1 second") }
            c.clusterSessionTimeout = session / .seconds(1)
        }
        if case .int(let bytes)? = values["journal.segmentBytes"]?.value {
            guard bytes >= 4096 else { throw fail("journal.segmentBytes", "must be at least 4096, got \(bytes)") }
            c.journalSegmentBytes = bytes
        }
        if let sync = string("journal.sync") {
            guard let policy = JournalSync(parsing: sync) else {
                throw fail("journal.sync", "expected always or interval:DURATION (1ms to 1h, as interval:1s or interval:500ms), got '\(sync)'")
            }
            if policy != .always, c.clusterLog != nil {
                throw fail("journal.sync", "applies to a journal on local files; a nats:// or kafka:// journal acknowledges once the cluster has the input")
            }
            c.journalSync = policy
        }
        if case .int(let records)? = values["checkpoint.records"]?.value {
            guard records > 0 else { throw fail("checkpoint.records", "must be at least 1, got \(records)") }
            c.checkpointRecords = records
        }
        if case .int(let inputs)? = values["checkpoint.inputs"]?.value {
            guard inputs > 0 else { throw fail("checkpoint.inputs", "must be at least 1, got \(inputs)") }
            c.checkpointInputs = inputs
        }
        if let listen = string("listen") {
            guard let hp = HostPort(parsing: listen) else {
                throw fail("listen", "expected HOST:PORT or [IPv6]:PORT with a port 0…65535, got '\(listen)'")
            }
            (c.host, c.port) = (hp.host, hp.port)
        }
        c.sinks = try strings("sink").map { s throws(ServerConfigurationError) in
            let parsed: SinkConfiguration?
            do { parsed = try SinkConfiguration(argument: s) } catch { throw fail("sink", "\(error)") }
            guard let sink = parsed else {
                throw fail("sink", "unknown sink '\(s)': use ndjson:PATH, ndjson:-, webhook:URL or mqtt://HOST:PORT/TOPIC-TEMPLATE")
            }
            return sink
        }
        c.inputs = try strings("input").map { s throws(ServerConfigurationError) in
            switch InputConfiguration.parse(s) {
            case .success(let input): return input
            case .failure(let e): throw fail("input", e.reason)
            }
        }
        if case .int(let n)? = values["maxBodyBytes"]?.value {
            guard n > 0 else { throw fail("maxBodyBytes", "the body size limit must be a positive number of bytes, got \(n)") }
            c.maximumBodyBytes = n
        }
        c.connections = try connections(values, fail: fail)
        if let clock = string("clock") {
            guard let value = ServerConfiguration.Clock(rawValue: clock) else { throw fail("clock", "unknown clock '\(clock)': use wall or event") }
            c.clock = value
        }
        func nonNegativeSeconds(_ key: String) throws(ServerConfigurationError) -> Double? {
            let d: Double
            switch values[key]?.value {
            case .double(let x)?: d = x
            case .int(let n)?: d = Double(n)
            default: return nil
            }
            guard d.isFinite, d >= 0, d < 1e10 else { throw fail(key, "\(key) must be a number of seconds ≥ 0, got \(d)") }
            return d
        }
        if let lateness = try nonNegativeSeconds("allowedLateness") { c.allowedLateness = lateness }
        if let future = try nonNegativeSeconds("maxFuture") { c.maximumFuture = future == 0 ? .unbounded : .seconds(future) }
        if let text = string("deviceRetention") {
            guard let seconds = Self.duration(text), seconds >= 1, seconds < 1e9 else {
                throw fail("deviceRetention", "deviceRetention must be a duration of at least 1 second: seconds, or a number with s, m, h or d (30d), got '\(text)'")
            }
            c.deviceRetention = seconds
        }
        if let text = string("deviceRetentionExits") {
            switch text {
            case "none": c.deviceRetentionExits = false
            case "exit": c.deviceRetentionExits = true
            default: throw fail("deviceRetentionExits", "deviceRetentionExits must be none or exit, got '\(text)'")
            }
        }
        c.tlsCertificatePath = string("tls.certificate")
        c.tlsKeyPath = string("tls.key")
        if let token = string("token") {
            // White space around a token is a copy-and-paste accident, and a blank one nobody could send.
            let trimmed = token.trimmingWhitespace
            guard !trimmed.isEmpty else { throw fail("token", "the bearer token is empty or white space only") }
            c.token = trimmed
        }
        if let file = string("tokenFile") {
            let bytes: [UInt8]
            do { bytes = try readFile(file) } catch { throw fail("tokenFile", "cannot read the token file: \(error)") }
            let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            guard !token.isEmpty else { throw fail("tokenFile", "the token file \(file) is empty") }
            c.token = token
        }
        var level = Logger.Level.info
        if let text = string("logLevel") {
            guard let l = Logger.Level(rawValue: text) else {
                throw fail("logLevel", "unknown log level '\(text)': use trace, debug, info, notice, warning, error or critical")
            }
            level = l
        }
        c.delivery = try delivery(values, fail: fail)
        try c.validate()
        var origins: [String: String] = [:]
        for (key, v) in values { origins[key] = v.origin }
        var format = LogFormat.text
        if let text = string("logFormat") {
            guard let f = LogFormat(rawValue: text) else { throw fail("logFormat", "unknown log format '\(text)': use text or json") }
            format = f
        }
        return Resolved(configuration: c, logLevel: level, logFormat: format, bluetoothAdapter: string("bluetooth"),
                        bluetoothBackend: string("bluetoothBackend") ?? "auto", origins: origins)
    }
}

extension ServeSettings {
    /// A DURATION in seconds: a number of seconds, or a number with the unit s, m, h or d (`30d`, `1.5h`).
    static func duration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text), scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        return value * scale
    }

    /// Positive seconds below a billion, as a Duration; nil when unset.
    static func seconds(_ key: String, _ values: [String: (value: ConfigContent, origin: String)], allowZero: Bool = false,
                        fail: (String, String) -> ServerConfigurationError) throws(ServerConfigurationError) -> Duration? {
        let d: Double
        switch values[key]?.value {
        case .double(let x)?: d = x
        case .int(let n)?: d = Double(n)
        default: return nil
        }
        guard d.isFinite, d > 0 || (allowZero && d == 0), d < 1e9 else {
            throw fail(key, "\(key) must be a \(allowZero ? "non-negative" : "positive") number of seconds, got \(d)")
        }
        return .microseconds(Int64((d * 1_000_000).rounded()))
    }

    /// The HTTP server's timeouts and connection bound.
    static func connections(_ values: [String: (value: ConfigContent, origin: String)],
                            fail: (String, String) -> ServerConfigurationError) throws(ServerConfigurationError) -> ConnectionLimits {
        var limits = ConnectionLimits()
        if let t = try seconds("http.headerTimeout", values, fail: fail) { limits.headerTimeout = t }
        if let t = try seconds("http.bodyTimeout", values, fail: fail) { limits.bodyTimeout = t }
        if let t = try seconds("http.idleTimeout", values, fail: fail) { limits.idleTimeout = t }
        if case .int(let n)? = values["http.maxConnections"]?.value {
            guard n >= 1 else { throw fail("http.maxConnections", "http.maxConnections must be at least 1, got \(n)") }
            limits.maximumConnections = n
        }
        if case .int(let n)? = values["http.maxConnectionsPerAddress"]?.value {
            guard n >= 0 else { throw fail("http.maxConnectionsPerAddress", "http.maxConnectionsPerAddress must be 0 (no bound) or more, got \(n)") }
            limits.maximumConnectionsPerAddress = n
        }
        if let t = try seconds("http.drainTimeout", values, fail: fail) { limits.drainTimeout = t }
        if case .int(let n)? = values["http.eventLoops"]?.value {
            guard n >= 1, n <= 256 else { throw fail("http.eventLoops", "http.eventLoops must be 1 to 256, got \(n)") }
            limits.eventLoops = n
        }
        return limits
    }

    /// The delivery settings; the webhook secret is read from its file here, so a bad path stops the start.
    static func delivery(_ values: [String: (value: ConfigContent, origin: String)],
                         fail: (String, String) -> ServerConfigurationError) throws(ServerConfigurationError) -> DeliveryConfiguration {
        func integer(_ key: String) -> Int? { if case .int(let n)? = values[key]?.value { n } else { nil } }
        func seconds(_ key: String, allowZero: Bool = false) throws(ServerConfigurationError) -> Duration? {
            try Self.seconds(key, values, allowZero: allowZero, fail: fail)
        }
        var d = DeliveryConfiguration()
        if let n = integer("outbox.maxEntries") { d.maximumEntries = n }
        if let t = try seconds("outbox.maxAge") { d.maximumAge = t }
        if let t = try seconds("retry.initial") { d.retry.initial = t }
        if let t = try seconds("retry.maximum") { d.retry.maximum = t }
        if let n = integer("webhook.batch") { d.webhook.batch = n }
        if let n = integer("webhook.concurrency") { d.webhook.concurrency = n }
        if let t = try seconds("webhook.timeout") { d.webhook.timeout = t }
        if case .string(let h)? = values["webhook.signatureHeader"]?.value { d.webhook.signatureHeader = h }
        if case .string(let file)? = values["webhook.secretFile"]?.value {
            let bytes: [UInt8]
            do { bytes = try readFile(file) } catch { throw fail("webhook.secretFile", "cannot read the webhook secret file: \(error)") }
            let secret = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            guard !secret.isEmpty else { throw fail("webhook.secretFile", "the webhook secret file \(file) is empty") }
            d.webhook.secret = Array(secret.utf8)
        }
        if let n = integer("ndjson.rotateBytes") { d.ndjson.rotateBytes = n }
        if let n = integer("ndjson.keep") { d.ndjson.keep = n }
        if let t = try seconds("ndjson.linger", allowZero: true) { d.ndjson.linger = t }
        do { try d.validate() } catch { throw ServerConfigurationError(reason: error.reason) }
        return d
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
