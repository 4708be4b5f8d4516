import CMosquitto

/// `mqtt[s]://[USER[:PASSWORD]@]HOST[:PORT]/TOPIC-FILTER[?OPTIONS]`: a subscription the service reads positions from
/// (`serve --input`). The options are the sink's (`clientId`, `cleanSession`, `version`, `keepalive`, TLS files…);
/// unlike a sink, an input keeps a persistent session by default — a fixed client id derived from the broker and
/// the filter, `cleanSession=false` — so the broker queues QoS 1 messages while the service is down.
public struct MQTTInputSpec: Sendable, Hashable {
    public var options: MQTTClient.Options
    public var filter: String

    public init(parsing spec: String) throws(MQTTSinkSpecError) {
        // The sink's grammar with a placeholder topic: the filter's wildcards are no template.
        let scheme = spec.lowercased().hasPrefix("mqtts://") ? 8 : 7
        let afterScheme = spec.dropFirst(scheme)
        guard spec.lowercased().hasPrefix("mqtt://") || spec.lowercased().hasPrefix("mqtts://"), let slash = afterScheme.firstIndex(of: "/") else {
            throw MQTTSinkSpecError(reason: "expected mqtt://HOST:PORT/TOPIC-FILTER or mqtts://…")
        }
        let pathAndQuery = afterScheme[afterScheme.index(after: slash)...]
        let path = pathAndQuery.prefix { $0 != "?" }
        let query = pathAndQuery.dropFirst(path.count)
        let filter = try MQTTSinkSpec.percentDecoded(path, what: "the topic filter")
        guard !filter.isEmpty, mosquitto_sub_topic_check(filter) == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTSinkSpecError(reason: "\"\(filter)\" is not a topic filter (levels separated by /, + and # as whole levels, # last)")
        }
        let sink = try MQTTSinkSpec(parsing: String(spec[..<afterScheme.startIndex]) + String(afterScheme[...slash]) + "input" + String(query))
        options = sink.options
        self.filter = filter
        let explicit = query.contains("cleanSession=") || query.contains("clientId=")
        if !explicit {
            options.cleanSession = false
            options.clientID = "geotrigger-input-" + Self.stableHash("\(options.host):\(options.port)/\(filter)")
        } else if options.clientID == nil, !options.cleanSession {
            throw MQTTSinkSpecError(reason: "cleanSession=false needs a clientId")
        }
    }

    /// `mqtt[s]://[USER@]HOST:PORT/FILTER`, never the password.
    public var name: String {
        let host = options.host.contains(":") ? "[\(options.host)]" : options.host
        let user = options.username.map { "\($0)@" } ?? ""
        return "\(options.tls == nil ? "mqtt" : "mqtts")://\(user)\(host):\(options.port)/\(filter)"
    }

    /// FNV-1a, hex: the same broker and filter give the same client id on every start (the broker keeps the session).
    static func stableHash(_ text: String) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }
}
