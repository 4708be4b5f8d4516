import CKafka

/// A failed librdkafka call: what was attempted, librdkafka's error name and text.
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing answered in time (a broker down, a group still joining).
        case timeout
        /// A setting librdkafka does not know or refuses.
        case configuration
        /// No such topic or partition.
        case unknownTopic
        /// The broker or librdkafka refused a message for good (too large, fenced, fatal idempotence error).
        case delivery
        case other
    }

    public let kind: Kind
    public let operation: String
    public let detail: String

    public var description: String { "\(operation): \(detail)" }

    init(_ operation: String, code: rd_kafka_resp_err_t) {
        self.operation = operation
        detail = "\(String(cString: rd_kafka_err2name(code))) (\(String(cString: rd_kafka_err2str(code))))"
        switch code {
        case RD_KAFKA_RESP_ERR__TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT: kind = .timeout
        case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION: kind = .unknownTopic
        default: kind = .other
        }
    }

    init(_ operation: String, kind: Kind, detail: String) {
        self.operation = operation
        self.kind = kind
        self.detail = detail
    }
}

@inline(__always)
func check(_ operation: @autoclosure () -> String, _ code: rd_kafka_resp_err_t) throws(KafkaError) {
    guard code == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(operation(), code: code) }
}
