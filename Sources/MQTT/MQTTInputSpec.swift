import CMosquitto
import Endpoints

/// `mqtt[s]://[USER[:PASSWORD]@]HOST[:PORT]/TOPIC-FILTER[?OPTIONS]`: a subscription the service reads positions from
/// (`serve --input`). The options are the sink's (`clientId`, `cleanSession`, `version`, `keepalive`, TLS files…);
/// unlike a sink, an input keeps a persistent session by default — a fixed client id derived from the broker and
/// the filter, `cleanSession=false` — so the broker queues QoS 1 messages while the service is down.
public struct MQTTInputSpec: Sendable, Hashable {
    public var options: MQTTClient.Options
    public var filter: String

    public init(parsing spec: String) throws(MQTTSinkSpecError) {
        let endpoint = try MQTTSinkSpec.endpoint(spec, expected: "mqtt://HOST:PORT/TOPIC-FILTER or mqtts://…")
        guard let path = endpoint.path else { throw MQTTSinkSpecError(reason: "expected mqtt://HOST:PORT/TOPIC-FILTER or mqtts://…") }
        let filter = try MQTTSinkSpec.percentDecoded(path, what: "the topic filter")
        guard !filter.isEmpty, mosquitto_sub_topic_check(filter) == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTSinkSpecError(reason: "\"\(filter)\" is not a topic filter (levels separated by /, + and # as whole levels, # last)")
        }
        options = try MQTTSinkSpec.options(endpoint)
        self.filter = filter
        let explicit = endpoint.optionKeys.contains("cleanSession") || endpoint.optionKeys.contains("clientId")
        if !explicit {
            options.cleanSession = false
            options.clientID = "geotrigger-input-" + Self.stableHash("\(options.host):\(options.port)/\(filter)")
        } else if options.clientID == nil, !options.cleanSession {
            throw MQTTSinkSpecError(reason: "cleanSession=false needs a clientId")
        }
    }

    /// `mqtt[s]://[USER@]HOST:PORT/FILTER`, never the password.
    public var name: String {
        let user = options.username.map { "\($0)@" } ?? ""
        return "\(options.tls == nil ? "mqtt" : "mqtts")://\(user)\(HostPort(host: options.host, port: options.port))/\(filter)"
    }

    /// FNV-1a, hex: the same broker and filter give the same client id on every start (the broker keeps the session).
    static func stableHash(_ text: String) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(h, radix: 16)
    }
}
