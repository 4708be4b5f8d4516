import Journal
import Logging
import Metrics
import NATS
import Synchronization
import TriggerEngine

/// The accepting side of every instance: any instance takes fixes and sightings for any device and request changes,
/// writes them to the JetStream streams, and answers once JetStream acknowledged them (stored on a quorum of a
/// replicated stream). Evaluation happens where the device's partition is owned, not here.
public final class ClusterGateway: Sendable {
    let connection: NATSConnection
    let names: ClusterNames
    let partitions: Int
    public let requests: RequestsFollower
    let logger: Logger
    private let published = Counter(label: "geotrigger_cluster_published_inputs_total")
    private let publishFailures = Counter(label: "geotrigger_cluster_publish_failures_total")
    /// The newest request change this instance published: inputs accepted after it must see it, even before the
    /// follower has read it back.
    private let lastPublishedRequest = Atomic<UInt64>(0)

    init(connection: NATSConnection, names: ClusterNames, partitions: Int, requests: RequestsFollower, logger: Logger) {
        self.connection = connection
        self.names = names
        self.partitions = partitions
        self.requests = requests
        self.logger = logger
    }

    var requestsSequence: UInt64 { max(requests.lastSequence, lastPublishedRequest.load(ordering: .acquiring)) }

    /// Writes a batch of fixes to the partitions of their devices; returns once every part is stored.
    public func publish(fixes: [LocationFix]) async throws(ClusterError) {
        var parts: [Int: [LocationFix]] = [:]
        for f in fixes { parts[Partitioning.partition(of: f.device, count: partitions), default: []].append(f) }
        try await publish(parts.mapValues { HostInput.fixes($0) }, count: fixes.count)
    }

    /// Writes a batch of sightings to the partitions of their observers.
    public func publish(sightings: [BeaconSighting]) async throws(ClusterError) {
        var parts: [Int: [BeaconSighting]] = [:]
        for s in sightings { parts[Partitioning.partition(of: s.device, count: partitions), default: []].append(s) }
        try await publish(parts.mapValues { HostInput.sightings($0) }, count: sightings.count)
    }

    private func publish(_ parts: [Int: HostInput], count: Int) async throws(ClusterError) {
        let stamp = requestsSequence
        let messages = parts.map { p, input in
            var w = ByteWriter(capacity: 4096)
            return (subject: names.inputSubject(p), data: ClusterInput(requestsSequence: stamp, input: input).encoded(using: &w))
        }
        let connection = self.connection
        // The parts go out together; each waits for its own acknowledgement.
        let failures = await withTaskGroup(of: NATSError?.self) { group in
            for m in messages {
                group.addTask {
                    await NATSConnection.blockingFailure { () throws(NATSError) in _ = try connection.publish(subject: m.subject, data: m.data) }
                }
            }
            var failures: [NATSError] = []
            for await f in group { if let f { failures.append(f) } }
            return failures
        }
        if let first = failures.first {
            publishFailures.increment()
            throw .unavailable("JetStream did not store \(failures.count) of \(messages.count) partition batches: \(first)")
        }
        published.increment(by: count)
    }

    /// Writes a request change; returns its sequence once stored.
    @discardableResult
    public func publish(change: HostInput) async throws(ClusterError) -> UInt64 {
        var w = ByteWriter(capacity: 1024)
        let data = RequestsFollower.encode(change, using: &w)
        let connection = self.connection, subject = names.requestsSubject
        let sequence: UInt64
        do {
            sequence = try await NATSConnection.blocking { () throws(NATSError) in try connection.publish(subject: subject, data: data).sequence }
        } catch {
            publishFailures.increment()
            throw .unavailable("JetStream did not store the request change: \(error)")
        }
        // Monotonic: concurrent changes may be acknowledged out of order.
        var current = lastPublishedRequest.load(ordering: .relaxed)
        while current < sequence {
            let (exchanged, original) = lastPublishedRequest.compareExchange(expected: current, desired: sequence, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = original
        }
        return sequence
    }
}
