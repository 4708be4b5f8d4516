/// Why an MQTT operation failed, and whether trying again later can help.
///
/// Retryable errors are about the connection: nothing is wrong with the messages, so a dispatcher keeps them and
/// sends them again. Permanent ones will fail the same way until something changes: the message (a topic the broker
/// refuses) or the configuration (credentials, certificates, options).
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The options cannot work (a TLS file that cannot be read, a keepalive out of range…). Permanent.
    case invalidOptions(String)
    /// No connection to the broker within the timeout; the reason is the last connection failure. Retryable.
    case notConnected(String)
    /// The broker refused the connection (credentials, authorisation, client identifier) or the TLS peer could not be
    /// verified. Permanent until the configuration changes; the client keeps reconnecting with backoff meanwhile.
    case connectionRefused(String)
    /// Messages were handed to libmosquitto but not all were acknowledged (PUBACK) within the timeout, usually
    /// because the connection dropped. They may still arrive (libmosquitto resends them on reconnect). Retryable.
    case timeout(String)
    /// The message at `index` of the batch (0 for a single publish) can never be published as is (invalid topic,
    /// payload too large); it was not sent, nor were the ones after it. Permanent.
    case rejected(index: Int, reason: String)
    /// The broker refused these messages of the batch (index → its MQTT 5 PUBACK reason code and text, e.g. not
    /// authorised); it acknowledged every other one. Permanent for those messages.
    case refused([Int: String])
    /// `close()` was called. Permanent.
    case closed
    /// The calling task was cancelled while waiting. Retryable.
    case cancelled

    public var isRetryable: Bool {
        switch self {
        case .notConnected, .timeout, .cancelled: true
        case .invalidOptions, .connectionRefused, .rejected, .refused, .closed: false
        }
    }

    public var description: String {
        switch self {
        case .invalidOptions(let r): "invalid MQTT options: \(r)"
        case .notConnected(let r): "not connected to the MQTT broker: \(r)"
        case .connectionRefused(let r): "MQTT connection refused: \(r)"
        case .timeout(let r): "MQTT publish not acknowledged: \(r)"
        case let .rejected(index, reason): "MQTT message \(index) rejected: \(reason)"
        case .refused(let refused):
            "the broker refused " + refused.sorted { $0.key < $1.key }.map { "message \($0.key) (\($0.value))" }.joined(separator: ", ")
        case .closed: "the MQTT client is closed"
        case .cancelled: "cancelled while waiting for the MQTT broker"
        }
    }
}
