/// The NDJSON file sink's settings (`--ndjson-*`); `DeliveryConfiguration.validate` checks them.
public struct NDJSONOptions: Sendable {
    /// Rotate a file sink before a write would take it past this size; 0 never rotates.
    public var rotateBytes: Int
    /// Rotated files kept: PATH.1 (newest) … PATH.keep.
    public var keep: Int
    /// A file sink's `ConfiguredSink.linger`: under load, one write and one fsync carry the notifications of
    /// several journal records instead of one each.
    public var linger: Duration

    public init(rotateBytes: Int = 0, keep: Int = 5, linger: Duration = .milliseconds(5)) {
        self.rotateBytes = rotateBytes
        self.keep = keep
        self.linger = linger
    }
}
