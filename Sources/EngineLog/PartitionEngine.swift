import TriggerEngine

/// One partition's engine in a scale-out deployment (`Cluster`): the same state and the same `apply` as the
/// embedded host's, so a partition's log gives the same notifications, byte for byte and with the same
/// deliveryIds, as the embedded journal does for those devices. Used from one thread at a time.
public final class PartitionEngine {
    let state: HostState

    public init(configuration: TriggerEngine.Configuration) {
        state = HostState(configuration: configuration)
    }

    /// Applies one input; returns the notifications it fired (with whether their request repeats) and how many
    /// fixes or sightings the engine refused.
    public func apply(_ input: HostInput) -> (notifications: [(notification: RecordedNotification, repeats: Bool)], rejected: Int, requestError: String?) {
        let outcome = state.apply(input)
        return (outcome.fired.map { (RecordedNotification($0), $0.repeats) }, outcome.rejected.count, outcome.requestError.map { "\($0)" })
    }

    /// The whole state, in the embedded host's checkpoint format.
    public func checkpoint() -> [UInt8] { state.encodeCheckpoint() }

    /// Restores a fresh engine from `checkpoint()`'s bytes.
    public func restore(_ body: [UInt8]) throws {
        _ = try state.restoreCheckpoint(body)
    }

    /// Devices with state, for the partition's metrics.
    public var deviceCount: Int { state.engine.deviceCount }
}
