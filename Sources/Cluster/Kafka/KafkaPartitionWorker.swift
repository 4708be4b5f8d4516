import Dispatch
import Foundation
import EngineLog
import Journal
import Kafka
import Logging
import Synchronization
import TriggerEngine

/// Owns one partition of the input topic while the consumer group assigns it here: restores the partition's newest
/// checkpoint, reads the partition in order after it, evaluates, publishes the notifications fired (to the same
/// partition of the notifications topic, keyed by device, the deliveryId in a header), and checkpoints
/// periodically once every notification before the checkpoint is acknowledged; the group's offset is committed
/// after each checkpoint.
///
/// Exactly once without a dedup window: a takeover (or a restart after a failure) first reads what the partition's
/// notifications hold from the checkpoint's notifications offset on, keeps those fired by inputs at or after the
/// checkpoint's input offset (each notification names its input's offset in a header) — what the last owner
/// published after its checkpoint — and publishes none of those deliveryIds again while it re-evaluates the same
/// inputs. Until it is past the last of those inputs, its checkpoints keep that notifications offset, so a second
/// takeover skips them too.
final class KafkaPartitionWorker: @unchecked Sendable {
    let partition: Int
    private let configuration: ClusterConfiguration
    private let names: ClusterNames
    private let requests: RequestsFollower
    private let commit: @Sendable (Int, Int64) throws -> Void
    private let logger: Logger
    private let metrics: ClusterMetrics
    private let thread = ClusterThread()
    private var brokers: String { configuration.servers.joined(separator: ",") }
    private var clientId: String { "\(configuration.instance)-p\(partition)" }

    /// The worker this partition had before here, still winding down after a revocation that outlived its bound:
    /// this one starts only once that one has returned.
    private let predecessor: KafkaPartitionWorker?
    /// Called at the top of every round of reading: the tests make a worker stuck with it.
    private let eachRound: (@Sendable (Int) -> Void)?

    init(partition: Int, configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower, metrics: ClusterMetrics,
         logger: Logger, predecessor: KafkaPartitionWorker? = nil, eachRound: (@Sendable (Int) -> Void)? = nil,
         commit: @escaping @Sendable (Int, Int64) throws -> Void) {
        self.partition = partition
        self.predecessor = predecessor
        self.eachRound = eachRound
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        self.commit = commit
        var logger = logger
        logger[metadataKey: "partition"] = "\(partition)"
        self.logger = logger
    }

    func start() {
        thread.start("kafka partition \(partition)") { [self] in run() }
    }

    /// Stops and waits: with `checkpoint`, checkpointed first so the next owner replays nothing (a revocation);
    /// without, at once (the assignment was lost: another member may own the partition already).
    func stop(checkpoint: Bool) {
        thread.stop(checkpoint ? .handOver : .now)
    }

    /// `stop(checkpoint:)` that waits at most `bound`; whether the worker has returned.
    func stop(checkpoint: Bool, within bound: Duration) -> Bool {
        thread.stop(checkpoint ? .handOver : .now, within: bound)
    }

    /// Asks it to stop at once, without waiting; it publishes nothing more.
    func abandon() { thread.requestStop(.now) }

    var isFinished: Bool { thread.isFinished }

    private var stopRequested: Bool { thread.stopRequested }

    private func run() {
        while let predecessor, !predecessor.isFinished, !stopRequested { Thread.sleep(forTimeInterval: 0.05) }
        while !stopRequested {
            do {
                try own()
                return
            } catch {
                metrics.partitionRestarts.increment()
                logger.warning("partition restarts from its newest checkpoint", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// One tenure from the newest checkpoint; returns when asked to stop, throws to start over.
    private func own() throws {
        let producer = try KafkaProducer(brokers: brokers, clientId: clientId)
        let engine = PartitionEngine(configuration: configuration.engine)
        var state = KafkaCheckpoint(inputOffset: 0, requestsSequence: 0, notificationsOffset: 0, body: [])
        var location: KafkaCheckpoint.Location?
        let started = ContinuousClock.now
        if let (checkpoint, at) = try KafkaCheckpoint.load(partition: partition, names: names, brokers: brokers, clientId: clientId) {
            try engine.restore(checkpoint.body)
            state = checkpoint
            location = at
        }
        // What the last owner published after the checkpoint: re-evaluating the same inputs fires these again. (What
        // retention deleted already cannot be checked: from the first offset still stored.)
        let stored = try producer.watermarks(topic: names.notificationsTopic, partition: partition).low
        let published = try KafkaPartitionReader(brokers: brokers, clientId: clientId, topic: names.notificationsTopic, partition: partition,
                                                 from: max(stored, state.notificationsOffset)).readToEnd()
        var repeats: Set<String> = []
        // The last input a predecessor evaluated after the checkpoint: once past it, nothing more can repeat.
        var replayedThrough: Int64 = -1
        for record in published {
            guard let id = record.headers[ClusterNames.deliveryIdHeader], let at = record.headers[ClusterNames.inputOffsetHeader]
                .flatMap({ Int64(String(decoding: $0, as: UTF8.self)) }), at >= state.inputOffset else { continue }
            repeats.insert(String(decoding: id, as: UTF8.self))
            replayedThrough = max(replayedThrough, at)
        }
        logger.notice("partition owned", metadata: [
            "checkpoint": "\(state.inputOffset)", "devices": "\(engine.deviceCount)", "published_after_checkpoint": "\(repeats.count)",
            "restored_ms": "\((ContinuousClock.now - started).nanoseconds / 1_000_000)"])
        let reader = try KafkaPartitionReader(brokers: brokers, clientId: clientId, topic: names.inputTopic, partition: partition, from: state.inputOffset)
        let once = KafkaOnceClaims(producer: producer, names: names, brokers: brokers, clientId: clientId)
        let evaluator = PartitionEvaluator(engine: engine, requestsSequence: state.requestsSequence, requests: requests, metrics: metrics,
                                           logger: logger,
                                           requestsWait: configuration.workerCallBound)
        committed = -1
        var lastCheckpoint = ContinuousClock.now, lastTick = ContinuousClock.now
        var changedSinceCheckpoint = false
        var writer = ByteWriter(capacity: 64)
        while true {
            eachRound?(partition)
            if configuration.wallClock, ContinuousClock.now - lastTick >= .seconds(1) {
                // The tick goes through the partition's log like any input: a replay moves the clock the same way.
                let tick = ClusterInput(requestsSequence: evaluator.requestsSequence, input: .clock(.wallClock()))
                try producer.send([KafkaMessage(topic: names.inputTopic, partition: partition, key: nil, value: tick.encoded(using: &writer))])
                lastTick = .now
            }
            switch thread.requested {
            case .handOver:
                if changedSinceCheckpoint { try checkpoint(evaluator, &state, &location, replaying: state.inputOffset <= replayedThrough, producer) }
                commitCheckpointed(state.inputOffset)
                logger.notice("partition handed over", metadata: ["checkpoint": "\(state.inputOffset)"])
                return
            case .now:
                logger.notice("partition left without a checkpoint (assignment lost)", metadata: ["at": "\(state.inputOffset)"])
                return
            case .running: break
            }
            for record in try reader.fetch(512, timeout: .milliseconds(200)) where record.offset >= state.inputOffset {
                try evaluator.evaluate(record.value, at: "offset \(record.offset)", sequence: UInt64(record.offset + 1), claim: once.claim) { n in
                    if repeats.remove(n.deliveryId) != nil {
                        metrics.repeatsSkipped.increment()
                        return
                    }
                    // Abandoned (the assignment lost, or a revocation that outlived its bound): another member may
                    // own the partition already, so nothing more is published.
                    if thread.requested == .now { throw ClusterError.unavailable("partition \(partition) was abandoned: nothing more is published") }
                    try producer.produce(KafkaMessage(topic: names.notificationsTopic, partition: partition, key: Array(n.device.utf8),
                                                      value: Array(n.json.utf8), headers: [
                                                          (ClusterNames.deliveryIdHeader, Array(n.deliveryId.utf8)),
                                                          (ClusterNames.inputOffsetHeader, Array(String(record.offset).utf8)),
                                                      ]))
                }
                state.inputOffset = record.offset + 1
                if state.inputOffset > replayedThrough { repeats.removeAll() }
                changedSinceCheckpoint = true
            }
            if changedSinceCheckpoint, ContinuousClock.now - lastCheckpoint >= configuration.checkpointInterval {
                try checkpoint(evaluator, &state, &location, replaying: state.inputOffset <= replayedThrough, producer)
                lastCheckpoint = .now
                changedSinceCheckpoint = false
            } else if !changedSinceCheckpoint, committed != state.inputOffset, ContinuousClock.now - lastCheckpoint >= configuration.checkpointInterval {
                // A commit refused during a rebalance, or a checkpoint restored that the group's offset is behind.
                commitCheckpointed(state.inputOffset)
                lastCheckpoint = .now
            }
        }
    }

    /// Once every notification published so far is acknowledged, stores the state, then commits the group's
    /// offset to it: a checkpoint never covers a notification that could still be lost.
    private func checkpoint(_ evaluator: PartitionEvaluator, _ state: inout KafkaCheckpoint, _ location: inout KafkaCheckpoint.Location?,
                            replaying: Bool, _ producer: KafkaProducer) throws {
        let failed = try producer.flush(timeout: .seconds(30))
        guard failed == 0 else { throw ClusterError.unavailable("\(failed) notifications were not stored") }
        let started = ContinuousClock.now
        // While the inputs the last owner evaluated have not all come round again, the next owner must still see its
        // notifications.
        if !replaying {
            state.notificationsOffset = try producer.endOffset(topic: names.notificationsTopic, partition: partition)
        }
        state.requestsSequence = evaluator.requestsSequence
        state.body = evaluator.engine.checkpoint()
        location = try state.save(partition: partition, names: names, producer: producer, replacing: location)
        state.body = []
        metrics.checkpoints.increment()
        metrics.checkpointSeconds.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
        commitCheckpointed(state.inputOffset)
    }

    /// The group's offset this tenure committed last (-1: none yet).
    private var committed: Int64 = -1

    /// Commits `offset`, which a stored checkpoint covers, as the group's offset for the partition. The checkpoint is
    /// what a takeover starts from; the group's offset is for Kafka's tools (lag). A refusal (routine while the group
    /// rebalances) is tried again a checkpoint interval later, by this owner or the next.
    private func commitCheckpointed(_ offset: Int64) {
        guard offset > 0, offset != committed else { return }
        do {
            try commit(partition, offset)
            committed = offset
        } catch {
            logger.notice("offset not committed after the checkpoint", metadata: ["offset": "\(offset)", "error": "\(error)"])
        }
    }
}
