import EngineLog
import Journal
import Logging

/// What every partition owner (JetStream's or Kafka's) does with one message of its input log, in log order:
/// decode it, apply the request changes up to its stamp, apply it to the partition's engine, and hand each firing
/// on — a `repeats: false` one only if it wins its claim. Used from the owner's thread only.
final class PartitionEvaluator {
    let engine: PartitionEngine
    /// The request changes applied so far (the requests log's sequence).
    private(set) var requestsSequence: UInt64
    private let requests: RequestsFollower
    private let metrics: ClusterMetrics
    private let logger: Logger
    /// How long an input waits for the request changes it is stamped with (the owner's call bound).
    private let requestsWait: Duration

    init(engine: PartitionEngine, requestsSequence: UInt64, requests: RequestsFollower, metrics: ClusterMetrics, logger: Logger,
         requestsWait: Duration) {
        self.requestsWait = requestsWait
        self.engine = engine
        self.requestsSequence = requestsSequence
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
    }

    /// Evaluates the message at `position` (for messages only). A message that is not GeoTrigger's input (a foreign
    /// producer, a newer format) is counted and logged, never a crash; anything that fails throws, and the owner
    /// starts over from its checkpoint.
    /// - Parameters:
    ///   - claim: for a `repeats: false` firing, whether it is the deployment's one.
    ///   - publish: each firing to send.
    func evaluate(_ data: [UInt8], at position: String, sequence: UInt64, claim: (RecordedNotification) throws -> Bool,
                  publish: (RecordedNotification) throws -> Void) throws {
        let input: ClusterInput
        do {
            input = try ClusterInput(decoding: data, sequence: sequence)
        } catch {
            metrics.undecodable.increment()
            logger.error("input message skipped", metadata: ["position": "\(position)", "error": "\(error)"])
            return
        }
        if input.requestsSequence > requestsSequence {
            guard let changes = requests.changes((requestsSequence + 1)...input.requestsSequence, timeout: requestsWait) else {
                throw ClusterError.unavailable("request changes up to \(input.requestsSequence) not read within \(requestsWait)")
            }
            for change in changes { _ = engine.apply(change) }
            requestsSequence = input.requestsSequence
        }
        let outcome = engine.apply(input.input)
        if outcome.rejected > 0 { metrics.rejected.increment(by: outcome.rejected) }
        for (n, repeats) in outcome.notifications {
            if !repeats, try !claim(n) {
                metrics.suppressedOnce.increment()
                continue
            }
            try publish(n)
        }
        if !outcome.notifications.isEmpty { metrics.notifications.increment(by: outcome.notifications.count) }
        metrics.evaluated.increment()
    }
}
