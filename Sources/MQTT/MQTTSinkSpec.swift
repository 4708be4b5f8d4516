import Endpoints

/// A `--sink` specification for MQTT:
/// `mqtt://[USER[:PASSWORD]@]HOST[:PORT]/TOPIC-TEMPLATE[?OPTION=VALUE&…]`, or `mqtts://` for TLS.
///
/// The port defaults to 1883 (8883 for `mqtts`). USER and PASSWORD may be percent-encoded. Options: `clientId`,
/// `cleanSession` (true/false), `version` (`3.1.1` or `5`), `keepalive` (s), `timeout` (publish timeout, s), and for
/// `mqtts` `ca` (CA file), `capath` (CA directory; default `/etc/ssl/certs` when neither is given), `cert` and
/// `key` (client certificate), `insecure` (true: skip the host name check).
public struct MQTTSinkSpec: Sendable, Hashable {
    public var options: MQTTClient.Options
    public var topic: MQTTTopicTemplate

    public init(parsing spec: String) throws(MQTTSinkSpecError) {
        let endpoint = try Self.endpoint(spec, expected: "mqtt://HOST:PORT/TOPIC or mqtts://…")
        guard let path = endpoint.path else {
            throw MQTTSinkSpecError(reason: "no topic template: expected mqtt://HOST:PORT/TOPIC-TEMPLATE")
        }
        do {
            topic = try MQTTTopicTemplate(path)
        } catch {
            throw MQTTSinkSpecError(reason: error.description)
        }
        options = try Self.options(endpoint)
    }

    /// The `mqtt[s]://` address through the one endpoint parser; its errors never repeat the text (a password).
    static func endpoint(_ spec: String, expected: String) throws(MQTTSinkSpecError) -> Endpoint {
        guard spec.lowercased().hasPrefix("mqtt://") || spec.lowercased().hasPrefix("mqtts://") else {
            throw MQTTSinkSpecError(reason: "expected \(expected), got \"\(spec.prefix(16))…\"")
        }
        do {
            return try Endpoint(parsing: spec, schemes: ["mqtt", "mqtts"], defaultPort: { $0 == "mqtts" ? 8883 : 1883 })
        } catch {
            throw MQTTSinkSpecError(reason: error.reason)
        }
    }

    /// The client's options from the address and its `?OPTION=VALUE` pairs (shared by sinks and inputs).
    static func options(_ endpoint: Endpoint) throws(MQTTSinkSpecError) -> MQTTClient.Options {
        func fail(_ reason: String) -> MQTTSinkSpecError { MQTTSinkSpecError(reason: reason) }
        let tls = endpoint.scheme == "mqtts"
        var options = MQTTClient.Options(host: endpoint.host.host, port: endpoint.host.port, username: endpoint.user, password: endpoint.password)
        var tlsOptions = MQTTClient.TLS()
        var seen = Set<String>()
        for (key, raw) in endpoint.query {
            let value = try Self.percentDecoded(raw, what: "option \(key)")
            guard seen.insert(key).inserted else { throw fail("option \(key) is given twice") }
            func seconds() throws(MQTTSinkSpecError) -> Duration {
                guard let s = Double(value), s > 0, s.isFinite else { throw fail("option \(key)=\(value) is not a positive number of seconds") }
                return .milliseconds(Int64((s * 1000).rounded()))
            }
            func flag() throws(MQTTSinkSpecError) -> Bool {
                switch value {
                case "true", "1": return true
                case "false", "0": return false
                default: throw fail("option \(key)=\(value) is not true or false")
                }
            }
            switch key {
            case "clientId": options.clientID = value
            case "cleanSession": options.cleanSession = try flag()
            case "version":
                switch value {
                case "3.1.1", "311", "4": options.protocolVersion = .v311
                case "5", "5.0": options.protocolVersion = .v5
                default: throw fail("option version=\(value): expected 3.1.1 or 5")
                }
            case "keepalive": options.keepAlive = try seconds()
            case "timeout": options.publishTimeout = try seconds()
            case "ca", "capath", "cert", "key", "insecure":
                guard tls else { throw fail("option \(key) needs mqtts://") }
                switch key {
                case "ca": tlsOptions.caFile = value
                case "capath": tlsOptions.caDirectory = value
                case "cert": tlsOptions.certificateFile = value
                case "key": tlsOptions.keyFile = value
                default: tlsOptions.insecure = try flag()
                }
            default:
                throw fail("unknown option \(key); known: clientId, cleanSession, version, keepalive, timeout, ca, capath, cert, key, insecure")
            }
        }
        if tls {
            if tlsOptions.caFile == nil && tlsOptions.caDirectory == nil { tlsOptions.caDirectory = "/etc/ssl/certs" }
            options.tls = tlsOptions
        }
        if options.clientID == nil && !options.cleanSession { throw fail("cleanSession=false needs a clientId") }
        return options
    }

    /// `mqtt[s]://[USER@]HOST:PORT/TOPIC-TEMPLATE`: what identifies the sink (its stored cursor, logs, metrics).
    /// Never the password; not the options, which may change without moving the sink elsewhere.
    public var name: String {
        let user = options.username.map { "\($0)@" } ?? ""
        return "\(options.tls == nil ? "mqtt" : "mqtts")://\(user)\(HostPort(host: options.host, port: options.port))/\(topic.text)"
    }

    static func percentDecoded(_ text: some StringProtocol, what: String) throws(MQTTSinkSpecError) -> String {
        do {
            return try Endpoint.percentDecoded(text, what: what)
        } catch {
            throw MQTTSinkSpecError(reason: error.reason)
        }
    }
}

/// Why an `mqtt://` sink specification cannot be used. It never repeats the specification, which may hold a password.
public struct MQTTSinkSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var description: String { "MQTT sink: \(reason)" }

    public init(reason: String) {
        self.reason = reason
    }
}
