import Dispatch
import Foundation
import EngineLog
import Journal
import Logging
import Metrics
import NATS
import Synchronization
import TriggerEngine

/// Owns one partition while its lease holds: restores the partition's newest checkpoint, reads the partition's
/// inputs in stream order after it, evaluates them, publishes the notifications they fire (`Nats-Msg-Id` =
/// deliveryId), and checkpoints periodically once every notification before the checkpoint is acknowledged.
///
/// Anything that fails (a publish, a read, a checkpoint) starts it over from its newest checkpoint: the inputs after
/// it are evaluated again and fire the same notifications with the same deliveryIds, which JetStream's duplicate
/// window drops. The same holds across owners: a takeover repeats what the last owner did after its checkpoint.
final class JetStreamPartitionWorker: @unchecked Sendable {
    let partition: Int
    private let configuration: ClusterConfiguration
    private let names: ClusterNames
    private let requests: RequestsFollower
    private let logger: Logger
    private let metrics: ClusterMetrics
    private let thread = ClusterThread()
    /// Called at the top of every round of reading: the tests make a worker stuck with it.
    private let eachRound: (@Sendable (Int) -> Void)?

    init(partition: Int, configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower,
         metrics: ClusterMetrics, logger: Logger, eachRound: (@Sendable (Int) -> Void)? = nil) {
        self.partition = partition
        self.eachRound = eachRound
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "partition"] = "\(partition)"
        self.logger = logger
    }

    func start() {
        thread.start("partition \(partition)") { [self] in run() }
    }

    /// Asks it to stop and returns at once (the lease keeper never waits on a worker): with `checkpoint`, the
    /// partition's state is checkpointed first so the next owner replays nothing (a handover); without, it stops
    /// publishing at once (the lease is lost: another instance may own it already). `isFinished` says when it has.
    func requestStop(checkpoint: Bool) {
        thread.requestStop(checkpoint ? .handOver : .now)
    }

    var isFinished: Bool { thread.isFinished }

    private var stopRequested: Bool { thread.stopRequested }
    /// The lease is gone: nothing more may be published or checkpointed, whatever call the worker wakes from.
    private var fenced: Bool { thread.requested == .now }

    private func checkFence() throws {
        if fenced { throw ClusterError.unavailable("partition \(partition) was abandoned (lease lost): nothing more is published") }
    }

    private func run() {
        var connection: NATSConnection?
        while !stopRequested {
            do {
                if connection == nil {
                    connection = try NATSConnection(servers: configuration.servers, name: "\(configuration.instance) partition \(partition)",
                                                    connectTimeout: configuration.connectTimeout(within: configuration.workerCallBound),
                                                    apiWait: configuration.workerCallBound)
                }
                try own(connection!)
                return
            } catch {
                if fenced {
                    logger.notice("partition left without a checkpoint (lease lost)", metadata: ["error": "\(error)"])
                    return
                }
                // A new connection for the next tenure: answers still due to this one's publishes must not be
                // counted as the next tenure's.
                connection = nil
                metrics.partitionRestarts.increment()
                logger.warning("partition restarts from its newest checkpoint", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// One tenure from the newest checkpoint; returns when asked to stop, throws to start over.
    private func own(_ connection: NATSConnection) throws {
        let engine = PartitionEngine(configuration: configuration.engine)
        var inputSequence: UInt64 = 0, requestsSequence: UInt64 = 0
        let started = ContinuousClock.now
        location = nil
        if let (checkpoint, at) = try JetStreamCheckpoint.load(partition: partition, names: names, from: connection) {
            location = at
            try engine.restore(checkpoint.body)
            inputSequence = checkpoint.inputSequence
            requestsSequence = checkpoint.requestsSequence
        }
        logger.notice("partition owned", metadata: [
            "checkpoint": "\(inputSequence)", "devices": "\(engine.deviceCount)", "restored_ms": "\((ContinuousClock.now - started).milliseconds)"])
        let consumer = try PullConsumer(connection: connection, stream: names.inputStream(partition), subject: names.inputSubject(partition),
                                        from: inputSequence + 1)
        let subject = names.notificationsSubject(partition)
        let evaluator = PartitionEvaluator(engine: engine, requestsSequence: requestsSequence, requests: requests, metrics: metrics, logger: logger,
                                           requestsWait: configuration.workerCallBound)
        var lastCheckpoint = ContinuousClock.now
        var lastTick = ContinuousClock.now
        var changedSinceCheckpoint = false
        var writer = ByteWriter(capacity: 64)
        var notifications: [UInt8] = []
        var freshConsumer = true
        var quietSince: ContinuousClock.Instant?
        while true {
            eachRound?(partition)
            if configuration.wallClock, ContinuousClock.now - lastTick >= .seconds(1) {
                // The tick goes through the partition's log like any input: a replay moves the clock the same way.
                let tick = ClusterInput(requestsSequence: evaluator.requestsSequence, input: .clock(.wallClock()))
                try checkFence()
                try connection.publish(subject: names.inputSubject(partition), data: tick.encoded(using: &writer))
                lastTick = .now
            }
            switch thread.requested {
            case .handOver:
                if changedSinceCheckpoint { try checkpoint(engine, inputSequence, evaluator.requestsSequence, connection) }
                logger.notice("partition handed over", metadata: ["checkpoint": "\(inputSequence)"])
                return
            case .now:
                logger.notice("partition left without a checkpoint (lease lost)", metadata: ["at": "\(inputSequence)"])
                return
            case .running: break
            }
            let batch = try consumer.fetch(512, timeout: .milliseconds(200))
            try checkDelivery(batch, after: inputSequence, fresh: &freshConsumer, quietSince: &quietSince, connection)
            for message in batch where message.sequence > inputSequence {
                // The notifications one input fires go out together, a line each, in messages of at most
                // `notificationBytes` whose ids are the input's place in the log and the message's index: a takeover
                // that evaluates the input again fires the same lines, and the duplicate window drops the repeats.
                var part = 0
                let publish = { (lines: [UInt8]) throws in
                    try self.checkFence()
                    let id = "\(self.partition)/\(message.sequence)/\(part)"
                    let sent: Result<Void, NATSError> = lines.withUnsafeBytes { b in
                        Result { () throws(NATSError) in try connection.publishAsync(subject: subject, data: b, messageId: id) }
                    }
                    try sent.get()
                    part += 1
                }
                notifications.removeAll(keepingCapacity: true)
                try evaluator.evaluate(message.data, at: "sequence \(message.sequence)", sequence: message.sequence,
                                       claim: { try claimOnce($0, connection) }) { n in
                    var json = n.json
                    if !notifications.isEmpty, notifications.count + json.utf8.count >= Self.notificationBytes {
                        try publish(notifications)
                        notifications.removeAll(keepingCapacity: true)
                    }
                    json.withUTF8 { notifications.append(contentsOf: $0) }
                    notifications.append(UInt8(ascii: "\n"))
                }
                if !notifications.isEmpty { try publish(notifications) }
                inputSequence = message.sequence
                changedSinceCheckpoint = true
            }
            if changedSinceCheckpoint, ContinuousClock.now - lastCheckpoint >= configuration.checkpointInterval {
                try checkpoint(engine, inputSequence, evaluator.requestsSequence, connection)
                lastCheckpoint = .now
                changedSinceCheckpoint = false
            }
        }
    }

    /// The consumer reads without acknowledgements from a server that can lose it (an ephemeral consumer lives on one
    /// node: a node's restart or a new meta leader can drop it, or drop what it had sent). Then fetches time out as if
    /// nothing were new, or it goes on past inputs it never delivered. Either would lose acknowledged inputs in
    /// silence, so both end the tenure: it starts over from the newest checkpoint through a new consumer.
    /// - A batch that does not continue from `inputSequence` skipped inputs. The input stream has no limits, so its
    ///   sequences have no holes: only a fresh consumer's first message may start past it (an operator removed
    ///   messages), which is reported and counted, since no new consumer could read them.
    /// - After `stallProbe` of empty fetches, the stream is asked for its newest sequence: one past `inputSequence`
    ///   means the consumer has inputs it does not deliver.
    private func checkDelivery(_ batch: [StoredMessage], after inputSequence: UInt64, fresh: inout Bool,
                               quietSince: inout ContinuousClock.Instant?, _ connection: NATSConnection) throws {
        guard let first = batch.first(where: { $0.sequence > inputSequence }) else {
            guard batch.isEmpty else { return }
            let since = quietSince ?? .now
            quietSince = since
            guard ContinuousClock.now - since >= Self.stallProbe else { return }
            quietSince = .now
            // A stream still electing its leader does not answer: asked again after the next quiet spell.
            guard let last = try? connection.lastSequence(stream: names.inputStream(partition)), last > inputSequence else { return }
            metrics.consumersLost.increment()
            throw ClusterError.unavailable("the input stream holds up to \(last), its consumer delivered nothing past \(inputSequence) for \(Self.stallProbe)")
        }
        quietSince = nil
        defer { fresh = false }
        var expected = inputSequence + 1
        for message in batch where message.sequence > inputSequence {
            if message.sequence != expected {
                guard fresh, message.sequence == first.sequence else {
                    metrics.consumersLost.increment()
                    throw ClusterError.unavailable("the input consumer skipped \(expected)...\(message.sequence - 1)")
                }
                metrics.inputsAbsent.increment(by: Int64(message.sequence - expected))
                logger.error("inputs absent from the partition's log (removed from its stream), skipped", metadata: [
                    "from": "\(expected)", "to": "\(message.sequence - 1)"])
            }
            expected = message.sequence + 1
        }
    }

    /// How long fetches may come back empty before the stream is asked whether there was anything to deliver.
    static let stallProbe: Duration = .seconds(2)

    /// The most bytes of notification lines in one message: half of nats-server's default largest message.
    static let notificationBytes = 512 << 10

    private var onceBucket: KeyValueBucket?
    /// The checkpoint this tenure restored or wrote last: the next one is written over it (fenced).
    private var location: JetStreamCheckpoint.Location?

    /// A `repeats: false` request fires once in the whole deployment (SPEC §1), but each partition's engine fires it
    /// at its own first transition: the first firing to claim the request's key in the once bucket is the one
    /// published, the others are dropped (and counted). A replay of the winning firing finds its own deliveryId
    /// there and publishes it again (deduplicated downstream), so a takeover changes nothing.
    private func claimOnce(_ n: RecordedNotification, _ connection: NATSConnection) throws -> Bool {
        if onceBucket == nil {
            onceBucket = try KeyValueBucket(connection: connection, name: names.onceBucket, replicas: configuration.replicas)
        }
        let key = n.onceKey
        let id = Array(n.deliveryId.utf8)
        switch Result(catching: { () throws(NATSError) in try onceBucket!.create(key, value: id) }) {
        case .success: return true
        case .failure(let e) where e.kind == .conflict:
            return try onceBucket!.get(key)?.value == id
        case .failure(let e): throw e
        }
    }

    /// Once every notification published so far is acknowledged, stores the state: a checkpoint never covers a
    /// notification that could still be lost.
    private func checkpoint(_ engine: PartitionEngine, _ input: UInt64, _ requests: UInt64, _ connection: NATSConnection) throws {
        let failed = try connection.waitForAsyncPublishes(timeout: configuration.workerCallBound).missing
        guard failed == 0 else { throw ClusterError.unavailable("\(failed) notifications were not stored") }
        // The wait may have outlived the lease: a checkpoint written now would be fenced anyway, so none is tried.
        try checkFence()
        let started = ContinuousClock.now
        let body = engine.checkpoint()
        location = try JetStreamCheckpoint(inputSequence: input, requestsSequence: requests, body: body)
            .save(partition: partition, names: names, on: connection, replacing: location)
        metrics.checkpoints.increment()
        metrics.checkpointSeconds.recordNanoseconds((ContinuousClock.now - started).nanoseconds)
    }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
