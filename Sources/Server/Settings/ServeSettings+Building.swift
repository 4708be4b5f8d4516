import Journal
import Cluster
import Configuration
import Endpoints
import Inputs
import Logging

/// The resolved values checked and turned into a `ServerConfiguration`.
extension ServeSettings {
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
        c.corsOrigins = try strings("http.corsOrigin").map { o throws(ServerConfigurationError) in
            guard let origin = CORSPolicy.origin(o) else {
                throw fail("http.corsOrigin", "'\(o)' is not an origin: expected scheme://host[:port], no path (e.g. https://app.example.com)")
            }
            return origin
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
        if case .int(let n)? = values["explainDepth"]?.value {
            guard n >= 0, n <= 4096 else { throw fail("explainDepth", "explainDepth must be 0 to 4096 entries, got \(n)") }
            c.explainDepth = n
        }
        if let text = string("console") {
            switch text {
            case "on": c.console = true
            case "off": c.console = false
            default: throw fail("console", "console must be on or off, got '\(text)'")
            }
        }
        if let template = string("console.tiles") {
            guard template.contains("{z}"), template.contains("{x}"), template.contains("{y}"),
                template.hasPrefix("http://") || template.hasPrefix("https://") || template.hasPrefix("/")
            else {
                throw fail("console.tiles", "console.tiles must be an http(s) URL template with {z}, {x} and {y}, got '\(template)'")
            }
            c.consoleTiles = template
        }
        c.consoleTilesAttribution = string("console.tilesAttribution")
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
