/// The caller's choices for reading GeoJSON features as requests (`--id-property`, `?idProperty=`).
public struct GeoJSONOptions: Sendable, Hashable {
    /// The property whose value (a string or a number) is the identifier of a feature without
    /// `properties.identifier`, e.g. QGIS's `fid`. A feature lacking it is refused, naming the property.
    public var idProperty: String?

    public init(idProperty: String? = nil) {
        self.idProperty = idProperty
    }
}
