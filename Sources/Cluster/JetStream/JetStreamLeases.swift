import Foundation
import Logging
import NATS
import Synchronization

/// Which partitions this instance owns, through leases in a key-value bucket: `p<n>` holds the owner's name and
/// expires (the bucket's TTL) unless its owner writes it again, by compare-and-set on its revision, every third of
/// the TTL. Live instances heartbeat in a second bucket with the same TTL; each takes up to its share
/// (⌈P / live instances⌉) of the free partitions and hands over the ones beyond it, checkpointing first. A killed
/// instance's leases expire and the others take its partitions.
final class JetStreamLeases: PartitionOwnership, @unchecked Sendable {
    private let configuration: ClusterConfiguration
    private let names: ClusterNames
    private let requests: RequestsFollower
    private let metrics: ClusterMetrics
    private let logger: Logger
    private let thread = ClusterThread()
    /// The partitions owned now, for `/readyz` and the tests.
    let ownedNow = Mutex<[Int]>([])
    var owned: [Int] { ownedNow.withLock { $0 } }

    init(configuration: ClusterConfiguration, names: ClusterNames, requests: RequestsFollower, metrics: ClusterMetrics, logger: Logger) {
        self.configuration = configuration
        self.names = names
        self.requests = requests
        self.metrics = metrics
        self.logger = logger
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
        var renewed: ContinuousClock.Instant
        let worker: JetStreamPartitionWorker
    }

    private func run() {
        var owned: [Int: Tenure] = [:]
        var buckets: (leases: KeyValueBucket, members: KeyValueBucket, connection: NATSConnection)?
        let round = configuration.leaseTTL / 3
        let me = Array(configuration.instance.utf8)
        while !thread.stopRequested {
            let began = ContinuousClock.now
            do {
                if buckets == nil {
                    let c = try NATSConnection(servers: configuration.servers, name: "\(configuration.instance) leases")
                    buckets = (try KeyValueBucket(connection: c, name: names.leaseBucket, replicas: configuration.replicas, ttl: configuration.leaseTTL),
                               try KeyValueBucket(connection: c, name: names.memberBucket, replicas: configuration.replicas, ttl: configuration.leaseTTL),
                               c)
                }
                let (leases, members, _) = buckets!
                try members.put(configuration.instance, value: me)
                renew(&owned, leases, me)
                let live = max(1, try members.keys().count)
                let share = (configuration.partitions + live - 1) / live
                while owned.count > share, let p = owned.keys.max() {
                    owned.removeValue(forKey: p)!.worker.stop(checkpoint: true)
                    try? leases.delete(key(p))
                    logger.notice("partition released to rebalance", metadata: ["partition": "\(p)", "share": "\(share)", "instances": "\(live)"])
                }
                if owned.count < share { try acquire(&owned, share: share, leases, me) }
            } catch {
                logger.warning("lease round failed", metadata: ["error": "\(error)"])
                if case let e as NATSError = error, e.kind == .connection { buckets = nil }
            }
            // A lease not renewed within its TTL may be someone else's by now: stop evaluating it.
            for (p, t) in owned where ContinuousClock.now - t.renewed > configuration.leaseTTL {
                owned.removeValue(forKey: p)
                t.worker.stop(checkpoint: false)
                metrics.leaseLosses.increment()
                logger.warning("partition lease not renewed within its TTL; stopped", metadata: ["partition": "\(p)"])
            }
            publish(owned)
            let next = began + round
            while ContinuousClock.now < next, !thread.stopRequested { Thread.sleep(forTimeInterval: 0.05) }
        }
        for (p, t) in owned.sorted(by: { $0.key < $1.key }) {
            t.worker.stop(checkpoint: true)
            try? buckets?.leases.delete(key(p))
        }
        try? buckets?.members.delete(configuration.instance)
        publish([:])
        logger.notice("every partition handed over")
    }

    private func key(_ p: Int) -> String { "p\(p)" }

    private func renew(_ owned: inout [Int: Tenure], _ leases: KeyValueBucket, _ me: [UInt8]) {
        for (p, t) in owned {
            switch Result(catching: { () throws(NATSError) in try leases.update(key(p), value: me, revision: t.revision) }) {
            case .success(let revision):
                owned[p]!.revision = revision
                owned[p]!.renewed = .now
            case .failure(let e) where e.kind == .conflict || e.kind == .notFound:
                owned.removeValue(forKey: p)
                t.worker.stop(checkpoint: false)
                metrics.leaseLosses.increment()
                logger.warning("partition lease lost", metadata: ["partition": "\(p)", "error": "\(e)"])
            case .failure(let e):
                // The cluster may be electing a leader: keep working until the TTL says otherwise.
                logger.warning("partition lease not renewed", metadata: ["partition": "\(p)", "error": "\(e)"])
            }
        }
    }

    private func acquire(_ owned: inout [Int: Tenure], share: Int, _ leases: KeyValueBucket, _ me: [UInt8]) throws {
        let count = configuration.partitions
        let offset = Int(Partitioning.fnv1a32(me) % UInt32(count))
        for k in 0..<count where owned.count < share {
            let p = (offset + k) % count
            guard owned[p] == nil, try leases.get(key(p)) == nil else { continue }
            let created: Result<UInt64, NATSError> = Result { () throws(NATSError) in try leases.create(key(p), value: me) }
            guard case .success(let revision) = created else {
                if case .failure(let e) = created, e.kind != .conflict { throw e }
                continue
            }
            let worker = JetStreamPartitionWorker(partition: p, configuration: configuration, names: names, requests: requests,
                                         metrics: metrics, logger: logger)
            owned[p] = Tenure(revision: revision, renewed: .now, worker: worker)
            worker.start()
            logger.notice("partition lease taken", metadata: ["partition": "\(p)"])
        }
    }

    private func publish(_ owned: [Int: Tenure]) {
        let list = owned.keys.sorted()
        ownedNow.withLock { $0 = list }
        metrics.owned.record(list.count)
    }
}
