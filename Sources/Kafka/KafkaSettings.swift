import CKafka

/// librdkafka properties (`bootstrap.servers`, `session.timeout.ms`, …) in the order they are set: later ones win.
public struct KafkaSettings: Sendable {
    public var properties: [(String, String)]

    public init(_ properties: [(String, String)] = []) { self.properties = properties }

    public subscript(name: String) -> String? {
        get { properties.last { $0.0 == name }?.1 }
        set {
            properties.removeAll { $0.0 == name }
            if let newValue { properties.append((name, newValue)) }
        }
    }

    /// A new `rd_kafka_conf_t` with every property set; the caller owns it until `rd_kafka_new` takes it.
    func makeConf() throws(KafkaError) -> OpaquePointer {
        let conf = rd_kafka_conf_new()!
        var error = [CChar](repeating: 0, count: 512)
        for (name, value) in properties {
            let result = rd_kafka_conf_set(conf, name, value, &error, error.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                throw KafkaError("setting \(name)=\(value)", kind: .configuration, detail: KafkaSettings.text(error))
            }
        }
        return conf
    }

    /// Creates a client handle from `conf` (taken over on success, destroyed on failure).
    static func makeHandle(_ type: rd_kafka_type_t, _ conf: OpaquePointer, what: String) throws(KafkaError) -> OpaquePointer {
        var error = [CChar](repeating: 0, count: 512)
        guard let handle = rd_kafka_new(type, conf, &error, error.count) else {
            rd_kafka_conf_destroy(conf)
            throw KafkaError("creating the \(what)", kind: .configuration, detail: KafkaSettings.text(error))
        }
        return handle
    }

    /// The text librdkafka wrote into an error buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
