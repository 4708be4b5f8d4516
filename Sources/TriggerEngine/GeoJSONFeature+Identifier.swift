import JSON

extension GeoJSONFeature {
    /// `feature-` + the name's slug (when the feature has a `name`) + 12 hex digits of a hash of the geometry's type
    /// and coordinates (and a Point's radius): what geojson.io exports, with no id, keeps the same identifier across
    /// loads and machines as long as the shape is not redrawn; styling properties do not change it.
    static func derivedIdentifier(geometry: JSONValue?, radius: JSONValue?, name: String?) -> String {
        var canonical = geometry?["type"]?.stringValue ?? ""
        canonical += "\n" + (geometry?["coordinates"]?.jsonText ?? "null")
        if let radius { canonical += "\n" + radius.jsonText }
        // FNV-1a, 64 bits: fixed by definition, unlike Hasher, which is seeded per process.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let digits = String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(12))
        let slug = name.map(Self.slug) ?? ""
        return slug.isEmpty ? "feature-\(digits)" : "feature-\(slug)-\(digits)"
    }

    /// Lower-case ASCII letters and digits, anything else one `-`, at most 32 characters: safe in a URL path.
    static func slug(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty, !out.hasSuffix("-") {
                out += "-"
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        if out.count > 32 {
            out = String(out.prefix(32))
            while out.hasSuffix("-") { out.removeLast() }
        }
        return out
    }
}
