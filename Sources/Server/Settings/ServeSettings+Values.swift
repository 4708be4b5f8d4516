import Configuration
import Delivery

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
