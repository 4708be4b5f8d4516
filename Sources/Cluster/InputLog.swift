/// What the accepting side of a deployment needs from its log, JetStream or Kafka: where a device's inputs go,
/// appending them with an acknowledgement, and appending request changes to the one log every instance reads.
protocol InputLog: Sendable {
    /// The partition a device's inputs go to (where a producer of the log's own kind would put them: murmur2 on
    /// Kafka, FNV-1a on JetStream), and the key its messages carry (none on either: a message holds a batch's part).
    func placement(of device: String) -> (partition: Int, key: String?)
    /// Appends every message to its partition; returns once each is acknowledged (stored as the log promises).
    func append(_ messages: [LogAppend]) async throws(ClusterError)
    /// Appends a request change; returns its sequence in the requests log (1, 2, …).
    func appendRequest(_ data: [UInt8]) async throws(ClusterError) -> UInt64
    /// Nil while the log is reachable.
    var failureReason: String? { get }
}

/// One message for `InputLog.append`.
struct LogAppend: Sendable {
    var partition: Int
    var key: String?
    var data: [UInt8]
}
