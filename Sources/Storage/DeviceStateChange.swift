import TriggerEngine

/// The writes one batch makes for one device, computed by `DeviceStateMirror.change(to:)` and written by
/// `DeviceStateRepository.apply(_:in:)`.
public struct DeviceStateChange: Sendable {
    public enum Kind: Sendable, Hashable {
        /// The mirror did not know the device: delete its pair rows, write everything.
        case rewrite
        /// Only the differences.
        case partial
        /// The engine no longer has the device: delete its rows.
        case delete
    }

    /// One `pair_states` row to insert or update.
    public struct PairRow: Sendable, Hashable {
        public var identifier: String
        public var revision: UInt64
        public var state: String
        public var position: Int64
    }

    public let device: String
    public let kind: Kind
    /// Whether the `devices` row differs from the stored one (always for a rewrite).
    public let writesRow: Bool
    let snapshot: DeviceSnapshot?
    public let pairUpserts: [PairRow]
    /// Identifiers whose pair row goes.
    public let pairDeletes: [String]
    /// What the mirror holds once this change has committed (nil: the device is forgotten).
    let result: DeviceStateMirror.StoredDevice?

    /// Nothing to write: the stored rows already say this.
    public var isEmpty: Bool { kind == .partial && !writesRow && pairUpserts.isEmpty && pairDeletes.isEmpty }
}
