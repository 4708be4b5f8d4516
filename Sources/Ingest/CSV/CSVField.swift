/// A fix field a CSV column can hold, with the header names recognised for it when no mapping names the column.
public enum CSVField: String, CaseIterable, Sendable {
    case device, timestamp, latitude, longitude, horizontalAccuracy, altitude, speed, course

    /// Header names found automatically, most specific first (so `vehicle` wins over a row `id`): `FieldAliases`.
    /// Matching ignores case, spaces, underscores, hyphens and dots: `Vehicle ID`, `vehicle_id` and `VehicleId` are
    /// one name.
    public var recognisedNames: [String] { FieldAliases.names(of: self) }

    /// A row cannot become a fix without these (the device may come from the file name instead).
    public var isRequired: Bool { self == .timestamp || self == .latitude || self == .longitude }

    /// The keys a column mapping accepts for this field: its name and its `FieldAliases` names (those a JSON key
    /// may be), compared as header names are.
    public var mappingKeys: [String] {
        [rawValue] + FieldAliases.names(of: self).filter { !FieldAliases.isHeaderOnly($0) && $0 != rawValue }
    }

    /// The form header names are compared in: lower case without spaces, underscores, hyphens or dots.
    static func normalised(_ name: some StringProtocol) -> String {
        String(String.UnicodeScalarView(name.lowercased().unicodeScalars.filter { !" _-.\t".unicodeScalars.contains($0) }))
    }
}
