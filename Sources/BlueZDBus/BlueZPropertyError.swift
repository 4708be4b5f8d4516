/// A property of bluetoothd's that does not have the type or form the Device1 API documents: reported with the
/// property, what was expected and what arrived, and left out of the sighting; never a crash.
public struct BlueZPropertyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `RSSI`, `ManufacturerData`, `ServiceData`… or `properties` when the dictionary itself is malformed.
    public var property: String
    public var reason: String

    public init(property: String, reason: String) {
        self.property = property
        self.reason = reason
    }

    static func type(_ property: String, expected: String, got value: DBusValue) -> BlueZPropertyError {
        BlueZPropertyError(property: property, reason: "expected \(expected), got \(value.typeName)")
    }

    public var description: String { "\(property): \(reason)" }
}
