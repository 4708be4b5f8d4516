import Foundation
import Logging
import NATS
import Synchronization

/// Which partitions this instance owns, through leases in a key-value bucket: `p<n>` holds the owner's name and
/// expires (the bucket's TTL) unless its owner writes it again, by compare-and-set on its revision, every third of
/// the TTL. Live instances heartbeat in a second bucket with the same TTL; each takes up to its share
/// (⌈P / live instances⌉) of the free partitions and hands over the ones beyond it, checkpointing first. A killed
/// instance's leases expire and the others take its partitions.
///
/// The keeper never waits on a partition's worker: stopping one only asks it to stop, and the partition leaves
/// `owned` at once (it is listed in `stopping` until its worker has returned). Every call it makes is bounded by
/// `leaseCallBound`, and a lease it could not renew is abandoned before it can expire, so an owner stops
/// evaluating within the TTL whatever its workers are stuck in.
final class JetStreamLeases: PartitionOwnership, @unchecked Sendable {
    private let configuration: ClusterConfiguration
    private let names: ClusterNames
    private let requests: RequestsFollower
    private let metrics: ClusterMetrics
    private let logger: Logger
    private let eachRound: (@Sendable (Int) -> Void)?
    private let thread = ClusterThread()
    /// What `/v1/cluster` and the tests read: the partitions whose leases this instance holds and evaluates, and
    /// those whose workers are still winding down (handing over, or abandoned and not yet returned).
    private let state = Mutex<(owned: [Int], stopping: [Int])>(([], []))
    var owned: [Int] { state.withLock { $0.owned } }
    var stopping: [Int] { state.withLock { $0.stopping } }

    /// - Parameter eachRound: passed to every worker (the tests make one stuck with it).
    init(configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower, metrics: ClusterMetrics, logger: Logger,
         eachRound: (@Sendable (Int) -> Void)? = nil) {
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
        self.eachRound = eachRound
    }

    func start() {
        thread.start("partition leases") { [self] in run() }
    }

    /// Hands every partition over (checkpoint, then lease deleted) and leaves the member list.
    func stop() {
        thread.stop(.handOver)
    }

    private struct Tenure {
        var revision: UInt64
        /// When the last successful renewal was sent: the server wrote it later, so the lease lives at least a TTL
        /// from here.
        var renewed: ContinuousClock.Instant
        let worker: JetStreamPartitionWorker
        /// Handing over since then: the worker checkpoints while the lease is still renewed; the lease is deleted
        /// once the worker returned, or abandoned (left to expire) if it takes longer than twice the TTL.
        var releasing: ContinuousClock.Instant?
    }

    private struct Buckets {
        let connection: NATSConnection
        let leases: KeyValueBucket
        let members: KeyValueBucket
    }

    private func run() {
        var owned: [Int: Tenure] = [:]
        /// Workers of abandoned partitions, not yet returned.
        var abandoned: [JetStreamPartitionWorker] = []
        var buckets: Buckets?
        /// The live instances last counted: when a listing fails, the share stays what it was (0: never counted).
        var live = 0
        var leaving = false
        var leavingSince = ContinuousClock.now
        let round = configuration.leaseTTL / 3
        let me = Array(configuration.instance.utf8)
        while true {
            let began = ContinuousClock.now
            if thread.stopRequested, !leaving {
                leaving = true
                leavingSince = began
                for p in owned.keys where owned[p]!.releasing == nil { owned[p]!.releasing = began; owned[p]!.worker.requestStop(checkpoint: true) }
            }
            abandonExpiring(&owned, &abandoned)
            do {
                if buckets == nil { buckets = try connect() }
                let b = buckets!
                try renew(&owned, &abandoned, b.leases, me)
                try release(&owned, b.leases)
                if leaving {
                    let waited = ContinuousClock.now - leavingSince
                    if owned.isEmpty, abandoned.isEmpty || waited > configuration.leaseTTL { break }
                } else {
                    try heartbeat(b.members, me)
                    live = count(b.members) ?? live
                    if live > 0 {
                        let share = (configuration.partitions + live - 1) / live
                        rebalance(&owned, share: share, live: live)
                        if owned.count < share { try acquire(&owned, &abandoned, share: share, b.leases, me, began: began) }
                    }
                }
            } catch {
                metrics.leaseCallFailures.increment()
                logger.warning("lease round failed", metadata: ["error": "\(error)"])
                if case let e as NATSError = error, e.kind == .connection { buckets = nil }
                if leaving, buckets == nil, ContinuousClock.now - leavingSince > configuration.leaseTTL { break }
            }
            abandoned.removeAll { $0.isFinished }
            publish(owned, abandoned)
            let next = began + round
            while ContinuousClock.now < next, !(thread.stopRequested && !leaving) {
                Thread.sleep(forTimeInterval: 0.05)
                if abandonExpiring(&owned, &abandoned) { publish(owned, abandoned) }
                // A handover done: release its lease now rather than a round later (not while unconnected, where
                // the next round would only fail again at once).
                if leaving, buckets != nil, owned.values.contains(where: \.worker.isFinished) { break }
            }
        }
        for t in owned.values { t.worker.requestStop(checkpoint: false) }
        try? buckets?.members.delete(configuration.instance)
        publish([:], [])
        logger.notice("every partition handed over")
    }

    private func key(_ p: Int) -> String { "p\(p)" }

    private func connect() throws -> Buckets {
        let bound = configuration.leaseCallBound
        let c = try NATSConnection(servers: configuration.servers, name: "\(configuration.instance) leases",
                                   connectTimeout: configuration.connectTimeout(within: bound), apiWait: bound)
        return Buckets(connection: c,
                       leases: try KeyValueBucket(connection: c, name: names.leaseBucket, replicas: configuration.replicas, ttl: configuration.leaseTTL),
                       members: try KeyValueBucket(connection: c, name: names.memberBucket, replicas: configuration.replicas, ttl: configuration.leaseTTL))
    }

    /// Abandons every lease that could expire before one more bounded call returns: its worker is told to stop
    /// at once and the partition leaves `owned`. True when one was.
    @discardableResult
    private func abandonExpiring(_ owned: inout [Int: Tenure], _ abandoned: inout [JetStreamPartitionWorker]) -> Bool {
        let now = ContinuousClock.now
        let limit = now + configuration.leaseCallBound - configuration.leaseTTL
        let expiring = owned.filter { $0.value.renewed <= limit }.keys
        for p in expiring {
            abandon(p, &owned, &abandoned)
            logger.warning("partition lease not renewed in time; abandoned before it expires", metadata: ["partition": "\(p)"])
        }
        let stuck = owned.filter { $0.value.releasing.map { now - $0 > configuration.leaseTTL * 2 } ?? false }.keys
        for p in stuck {
            abandon(p, &owned, &abandoned)
            logger.warning("partition handover did not finish; abandoned, its lease left to expire", metadata: ["partition": "\(p)"])
        }
        return !expiring.isEmpty || !stuck.isEmpty
    }

    private func abandon(_ p: Int, _ owned: inout [Int: Tenure], _ abandoned: inout [JetStreamPartitionWorker]) {
        guard let t = owned.removeValue(forKey: p) else { return }
        t.worker.requestStop(checkpoint: false)
        abandoned.append(t.worker)
        metrics.leaseLosses.increment()
    }

    /// Renews every lease held. A refused renewal (someone else holds it) abandons the partition; a failed one is
    /// tried again next round unless the lease could expire first; a timeout ends the round (the cluster is not
    /// answering: the next calls would wait as long).
    private func renew(_ owned: inout [Int: Tenure], _ abandoned: inout [JetStreamPartitionWorker], _ leases: KeyValueBucket,
                       _ me: [UInt8]) throws {
        for p in owned.keys.sorted() {
            abandonExpiring(&owned, &abandoned)
            guard let t = owned[p] else { continue }
            let sent = ContinuousClock.now
            switch Result(catching: { () throws(NATSError) in try leases.update(key(p), value: me, revision: t.revision) }) {
            case .success(let revision):
                owned[p]!.revision = revision
                owned[p]!.renewed = sent
            case .failure(let e) where e.kind == .conflict || e.kind == .notFound:
                abandon(p, &owned, &abandoned)
                logger.warning("partition lease lost; abandoned", metadata: ["partition": "\(p)", "error": "\(e)"])
            case .failure(let e) where e.kind == .timeout || e.kind == .connection:
                throw e
            case .failure(let e):
                // The cluster may be electing a leader: keep working until the TTL says otherwise.
                metrics.leaseCallFailures.increment()
                logger.warning("partition lease not renewed", metadata: ["partition": "\(p)", "error": "\(e)"])
            }
        }
    }

    /// Deletes the leases of partitions handed over (their workers returned after checkpointing).
    private func release(_ owned: inout [Int: Tenure], _ leases: KeyValueBucket) throws {
        for (p, t) in owned where t.releasing != nil && t.worker.isFinished {
            owned.removeValue(forKey: p)
            // Only the lease this instance holds: if it expired and another instance took it meanwhile, the
            // delete is refused and the other keeps it.
            let revision = t.revision
            switch Result(catching: { () throws(NATSError) in try leases.delete(key(p), revision: revision) }) {
            case .success:
                logger.notice("partition handed over; lease released", metadata: ["partition": "\(p)"])
            case .failure(let e) where e.kind == .conflict || e.kind == .notFound:
                logger.notice("partition handed over; its lease had passed to another instance", metadata: ["partition": "\(p)"])
            case .failure(let e):
                throw e
            }
        }
    }

    private func heartbeat(_ members: KeyValueBucket, _ me: [UInt8]) throws {
        do throws(NATSError) {
            try members.put(configuration.instance, value: me)
        } catch where error.kind == .timeout || error.kind == .connection {
            throw error
        } catch {
            metrics.leaseCallFailures.increment()
            logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
        }
    }

    /// The live instances, or nil when the listing failed: a slow listing never makes this instance take more
    /// than its last known share.
    private func count(_ members: KeyValueBucket) -> Int? {
        do throws(NATSError) {
            return max(1, try members.keys(timeout: configuration.leaseCallBound).count)
        } catch {
            metrics.leaseCallFailures.increment()
            logger.warning("members not counted; the last count stands", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Asks the workers of the partitions beyond the share to hand over; their leases are renewed until they have.
    private func rebalance(_ owned: inout [Int: Tenure], share: Int, live: Int) {
        var keeping = owned.values.filter { $0.releasing == nil }.count
        for p in owned.keys.sorted(by: >) where keeping > share && owned[p]!.releasing == nil {
            owned[p]!.releasing = .now
            owned[p]!.worker.requestStop(checkpoint: true)
            keeping -= 1
            logger.notice("partition released to rebalance", metadata: ["partition": "\(p)", "share": "\(share)", "instances": "\(live)"])
        }
    }

    private func acquire(_ owned: inout [Int: Tenure], _ abandoned: inout [JetStreamPartitionWorker], share: Int, _ leases: KeyValueBucket,
                         _ me: [UInt8], began: ContinuousClock.Instant) throws {
        let count = configuration.partitions
        let offset = Int(Partitioning.fnv1a32(me) % UInt32(count))
        let round = configuration.leaseTTL / 3
        for k in 0..<count where owned.count < share {
            // Taking partitions never delays the next renewal.
            guard ContinuousClock.now - began < round else { return }
            let p = (offset + k) % count
            // A partition whose abandoned worker has not returned yet is not taken again until it has.
            guard owned[p] == nil, !abandoned.contains(where: { $0.partition == p }), try leases.get(key(p)) == nil else { continue }
            let sent = ContinuousClock.now
            let created: Result<UInt64, NATSError> = Result { () throws(NATSError) in try leases.create(key(p), value: me) }
            guard case .success(let revision) = created else {
                if case .failure(let e) = created, e.kind != .conflict { throw e }
                continue
            }
            let worker = JetStreamPartitionWorker(partition: p, configuration: configuration, names: names, requests: requests,
                                                  metrics: metrics, logger: logger, eachRound: eachRound)
            owned[p] = Tenure(revision: revision, renewed: sent, worker: worker)
            worker.start()
            logger.notice("partition lease taken", metadata: ["partition": "\(p)"])
        }
    }

    private func publish(_ owned: [Int: Tenure], _ abandoned: [JetStreamPartitionWorker]) {
        let list = owned.filter { $0.value.releasing == nil }.keys.sorted()
        let stopping = (owned.filter { $0.value.releasing != nil }.keys + abandoned.map(\.partition)).sorted()
        state.withLock { $0 = (list, stopping) }
        metrics.owned.record(list.count)
        metrics.stopping.record(stopping.count)
    }
}
