import JSON

/// A request body or region file after GeoJSON is read: the SPEC §1 form the service journals and lists, and, when
/// the input was GeoJSON, its requests decoded feature by feature (so errors name `features[i]` and the user's
/// property, not the converted form) and the defaults that filled in what the features left out.
public struct GeoJSONConversion: Sendable {
    /// An array of request objects for a FeatureCollection, one request object for a Feature, otherwise the input.
    public var json: JSONValue
    /// The decoded requests, in `json`'s order; nil when the input was not GeoJSON (decode `json` then).
    public var requests: [NotificationRequest]?
    /// Per request, the GeoJSON defaults its feature took, in a fixed order: `identifier`, `radius`, `repeats`,
    /// `title`, `body` (docs/semantics.md, "GeoJSON features"); empty when the input was not GeoJSON.
    public var defaults: [[String]]

    /// The defaults used by at least one feature, in the same order.
    public var defaultsApplied: [String] {
        let used = Set(defaults.joined())
        return Self.defaultNames.filter(used.contains)
    }

    public static let defaultNames = ["identifier", "radius", "repeats", "title", "body"]

    public init(json: JSONValue, requests: [NotificationRequest]?, defaults: [[String]]) {
        self.json = json
        self.requests = requests
        self.defaults = defaults
    }
}
