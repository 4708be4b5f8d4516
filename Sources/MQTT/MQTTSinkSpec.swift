import JSON

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
        func fail(_ reason: String) -> MQTTSinkSpecError { MQTTSinkSpecError(reason: reason) }
        let tls: Bool
        let rest: Substring
        if spec.lowercased().hasPrefix("mqtt://") {
            tls = false
            rest = spec.dropFirst(7)
        } else if spec.lowercased().hasPrefix("mqtts://") {
            tls = true
            rest = spec.dropFirst(8)
        } else {
            throw fail("expected mqtt://HOST:PORT/TOPIC or mqtts://…, got \"\(spec.prefix(16))…\"")
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw fail("no topic template: expected mqtt://HOST:PORT/TOPIC-TEMPLATE")
        }
        var authority = rest[..<slash]
        let pathAndQuery = rest[rest.index(after: slash)...]
        let path = pathAndQuery.prefix { $0 != "?" }
        let query = pathAndQuery.dropFirst(path.count + 1)

        var username: String?, password: String?
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                username = try Self.percentDecoded(userinfo[..<colon], what: "the user name")
                password = try Self.percentDecoded(userinfo[userinfo.index(after: colon)...], what: "the password")
            } else {
                username = try Self.percentDecoded(userinfo, what: "the user name")
            }
            guard username?.isEmpty == false else { throw fail("the user name before '@' is empty") }
        }

        let host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("IPv6 address without ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw fail("unexpected \"\(after)\" after the IPv6 address") }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard !host.isEmpty else { throw fail("the host is empty") }
        var port = tls ? 8883 : 1883
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw fail("port \"\(portText)\" is not a number in 1…65535") }
            port = p
        }

        do {
            topic = try MQTTTopicTemplate(String(path))
        } catch {
            throw fail(error.description)
        }
        options = MQTTClient.Options(host: String(host), port: port, username: username, password: password)

        var tlsOptions = MQTTClient.TLS()
        var seen = Set<String>()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let eq = pair.firstIndex(of: "=") else { throw fail("option \"\(pair)\" has no '=VALUE'") }
            let key = String(pair[..<eq])
            let value = try Self.percentDecoded(pair[pair.index(after: eq)...], what: "option \(key)")
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
    }

    /// `mqtt[s]://[USER@]HOST:PORT/TOPIC-TEMPLATE`: what identifies the sink (its stored cursor, logs, metrics).
    /// Never the password; not the options, which may change without moving the sink elsewhere.
    public var name: String {
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        let user = options.username.map { "\($0)@" } ?? ""
        return "\(options.tls == nil ? "mqtt" : "mqtts")://\(user)\(host):\(options.port)/\(topic.text)"
    }

    static func percentDecoded(_ text: Substring, what: String) throws(MQTTSinkSpecError) -> String {
        do {
            return try PercentDecoding.decode(text)
        } catch {
            switch error {
            case .malformedEscape: throw MQTTSinkSpecError(reason: "\(what) has an invalid percent escape")
            case .notUTF8: throw MQTTSinkSpecError(reason: "\(what) is not UTF-8 once decoded")
            }
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
