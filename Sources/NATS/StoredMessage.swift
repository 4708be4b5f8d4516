/// A message as a stream stores it: its stream sequence, subject and bytes.
public struct StoredMessage: Sendable, Equatable {
    public var sequence: UInt64
    public var subject: String
    public var data: [UInt8]
    /// Its `Nats-Msg-Id`, when it was published with one.
    public var messageId: String? = nil
}
