import EngineLog
import Journal
import Logging
import Metrics
import Synchronization
import TriggerEngine

/// The accepting side of every instance: any instance takes fixes and sightings for any device and request changes,
/// writes them to the deployment's log (JetStream streams or Kafka topics), and answers once the log acknowledged
/// them (stored on a quorum of a replicated stream; `acks=all` in Kafka). Evaluation happens where the device's
/// partition is owned, not here.
public final class ClusterGateway: Sendable {
    let log: any InputLog
    public let requests: RequestsFollower
    let logger: Logger
    private let published = Counter(label: "geotrigger_cluster_published_inputs_total")
    private let publishFailures = Counter(label: "geotrigger_cluster_publish_failures_total")
    /// The newest request change this instance published: inputs accepted after it must see it, even before the
    /// follower has read it back.
    private let lastPublishedRequest = Atomic<UInt64>(0)

    init(log: any InputLog, requests: RequestsFollower, logger: Logger) {
        self.log = log
        self.requests = requests
        self.logger = logger
    }

    var requestsSequence: UInt64 { max(requests.lastSequence, lastPublishedRequest.load(ordering: .acquiring)) }

    /// Writes a batch of fixes to the partitions of their devices; returns once every part is stored.
    public func publish(fixes: [LocationFix]) async throws(ClusterError) {
        try await publish(grouped(fixes, by: \.device).map { ($0.0, HostInput.fixes($0.1)) }, count: fixes.count)
    }

    /// Writes a batch of sightings to the partitions of their observers.
    public func publish(sightings: [BeaconSighting]) async throws(ClusterError) {
        try await publish(grouped(sightings, by: \.device).map { ($0.0, HostInput.sightings($0.1)) }, count: sightings.count)
    }

    /// The items by where they go: one part per partition and key (per partition on JetStream, per device on Kafka),
    /// each keeping the batch's order.
    private func grouped<T>(_ items: [T], by device: KeyPath<T, String>) -> [(Placement, [T])] {
        var order: [Placement] = []
        var parts: [Placement: [T]] = [:]
        for item in items {
            let (partition, key) = log.placement(of: item[keyPath: device])
            let place = Placement(partition: partition, key: key)
            if parts[place] == nil { order.append(place) }
            parts[place, default: []].append(item)
        }
        return order.map { ($0, parts[$0]!) }
    }

    private struct Placement: Hashable {
        var partition: Int
        var key: String?
    }

    private func publish(_ parts: [(Placement, HostInput)], count: Int) async throws(ClusterError) {
        let stamp = requestsSequence
        var w = ByteWriter(capacity: 4096)
        let messages = parts.map { place, input in
            LogAppend(partition: place.partition, key: place.key, data: ClusterInput(requestsSequence: stamp, input: input).encoded(using: &w))
        }
        do {
            try await log.append(messages)
        } catch {
            publishFailures.increment()
            throw error
        }
        published.increment(by: count)
    }

    /// Writes a request change; returns its sequence once stored.
    @discardableResult
    public func publish(change: HostInput) async throws(ClusterError) -> UInt64 {
        var w = ByteWriter(capacity: 1024)
        let data = RequestsFollower.encode(change, using: &w)
        let sequence: UInt64
        do {
            sequence = try await log.appendRequest(data)
        } catch {
            publishFailures.increment()
            throw error
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
