import Logging

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
              help: "Directory of the journal (every accepted input, fsync'd before it is acknowledged unless --sync says otherwise) and its checkpoints; default: the database path with .journal appended. Or nats://HOST:PORT[,HOST:PORT…]: run as one instance of a scale-out deployment on that JetStream cluster; or kafka://HOST:PORT[,HOST:PORT…]: the same on that Kafka cluster (docs/cluster.md)."),
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
        .init("http.corsOrigin", flag: "cors-origin", .strings, default: nil,
              help: "A browser origin (scheme://host[:port]) allowed to call the API cross-origin (CORS; its preflights answered, its responses marked). Repeatable; none by default: no CORS headers at all."),
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
        .init("explainDepth", flag: "explain-depth", .integer, default: "16",
              help: "Entries kept per device for GET /v1/devices/{id}/explain: each input is one, and each thing it did to a request (entered, fired, held back…) one more; 32 bytes each, so 16 cost 512 bytes a device. 0 keeps none (docs/why.md)."),
        .init("console", flag: "console", .string, default: "on",
              help: "The operator console at /console (a map of regions and live devices, the last notifications, a device's explanation): on, or off (--no-console)."),
        .init("console.tiles", flag: "console-tiles", .string, default: nil,
              help: "The console's map tiles: a URL template with {z}, {x} and {y} (e.g. https://tile.example.org/{z}/{x}/{y}.png); default: none, a plain graticule, nothing fetched."),
        .init("console.tilesAttribution", flag: "console-tiles-attribution", .string, default: nil,
              help: "The attribution the tile server requires, shown on the console's map."),
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
}
