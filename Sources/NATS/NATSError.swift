import CNATS

/// A failed NATS or JetStream call: what was attempted, nats.c's status, the JetStream error code when the server
/// gave one, and nats.c's own description of the last error on this thread.
public struct NATSError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A key-value create found the key, or an update found another revision: someone else wrote first.
        case conflict
        /// No such message, key, stream or consumer.
        case notFound
        /// Nothing arrived in time (a fetch with no new messages is not an error: it returns none).
        case timeout
        /// Not connected, or the connection was closed.
        case connection
        case other
    }

    public let kind: Kind
    public let operation: String
    public let detail: String

    public var description: String { "\(operation): \(detail)" }

    init(_ operation: String, status: natsStatus, code: jsErrCode = jsErrCode(rawValue: 0)) {
        self.operation = operation
        var text = String(cString: natsStatus_GetText(status))
        if let last = nats_GetLastError(nil) {
            let l = String(cString: last)
            if !l.isEmpty, l != text { text += " (\(l))" }
        }
        if code.rawValue != 0 { text += " [JetStream error \(code.rawValue)]" }
        detail = text
        switch status {
        case NATS_NOT_FOUND: kind = .notFound
        case NATS_TIMEOUT: kind = .timeout
        case NATS_CONNECTION_CLOSED, NATS_CONNECTION_DISCONNECTED, NATS_NO_SERVER, NATS_NOT_PERMITTED: kind = .connection
        default:
            switch code {
            case JSStreamWrongLastSequenceErr: kind = .conflict
            case JSStreamNotFoundErr, JSConsumerNotFoundErr, JSNoMessageFoundErr: kind = .notFound
            default: kind = .other
            }
        }
    }

    init(_ operation: String, kind: Kind, detail: String) {
        self.operation = operation
        self.kind = kind
        self.detail = detail
    }
}

@inline(__always)
func check(_ operation: @autoclosure () -> String, _ status: natsStatus, _ code: jsErrCode = jsErrCode(rawValue: 0)) throws(NATSError) {
    guard status == NATS_OK else { throw NATSError(operation(), status: status, code: code) }
}
