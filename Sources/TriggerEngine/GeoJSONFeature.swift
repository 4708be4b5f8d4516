import JSON

/// One GeoJSON Feature rewritten as a request object in the SPEC §1 shape, with the defaults chosen for zones drawn
/// in geojson.io or QGIS, and a map from the request's field paths back to the feature's, so an error names what
/// the user wrote (`properties.radius`, `geometry.coordinates[0][2]`), never the converted form.
struct GeoJSONFeature {
    static let contentKeys: Set<String> = ["title", "subtitle", "body", "badge", "sound", "categoryIdentifier",
                                           "threadIdentifier", "summaryArgument", "userInfo"]
    static let triggerKeys: Set<String> = ["notifyOnEntry", "notifyOnExit", "repeats", "devices", "dwell", "hysteresis",
                                           "maximumAccuracy", "initialTrigger", "minimumInterval", "exitTimeout"]
    static let defaultRadius = 100.0
    static let defaultTitle = "{region.name}"
    static let defaultBody = "{device}: {event} at {fix.time}"

    var identifier: String
    /// The SPEC §1 request object.
    var request: JSONValue
    /// Which of `GeoJSONConversion.defaultNames` this feature took.
    var defaults: Set<String> = []

    /// `defaults` in the documented order.
    var defaultsList: [String] { GeoJSONConversion.defaultNames.filter(defaults.contains) }
    /// (request path, feature path) pairs; the longest matching prefix of an error's path is rewritten.
    var sources: [(request: String, feature: String)] = []

    /// `derivedIDs` counts the identifiers derived from content so far in the collection: the second feature with
    /// the same content (and name) gets `-2`, the third `-3`, in file order.
    init(_ feature: JSONValue, options: GeoJSONOptions, derivedIDs: inout [String: Int]) throws(RequestError) {
        guard feature["type"]?.stringValue == "Feature" else {
            throw RequestError(path: "type", reason: "expected a GeoJSON Feature")
        }
        let properties = feature["properties"]?.objectValue ?? []
        func property(_ k: String) -> JSONValue? {
            guard let v = properties.first(where: { $0.key == k })?.value, !v.isNull else { return nil }
            return v
        }
        let featureID = feature["id"].flatMap(Self.text)
        let geometry = feature["geometry"].flatMap { $0.isNull ? nil : $0 }
        let isPoint = geometry?["type"]?.stringValue == "Point"

        if let given = property("identifier") {
            identifier = given.stringValue ?? ""
            sources.append(("identifier", "properties.identifier"))
        } else if let name = options.idProperty {
            guard let value = property(name), let text = Self.text(value), !text.isEmpty else {
                throw RequestError(path: "properties.\(name)", reason: "required by --id-property \(name): a non-empty string or a number")
            }
            identifier = text
            sources.append(("identifier", "properties.\(name)"))
        } else if let featureID {
            identifier = featureID
            sources.append(("identifier", "id"))
        } else {
            let base = Self.derivedIdentifier(geometry: geometry, radius: isPoint ? property("radius") : nil,
                                              name: property("name").flatMap(Self.text))
            let n = derivedIDs[base, default: 0] + 1
            derivedIDs[base] = n
            identifier = n == 1 ? base : "\(base)-\(n)"
            defaults.insert("identifier")
            sources.append(("identifier", "properties.identifier"))
        }
        guard let geometry else {
            throw RequestError(identifier: identifier, path: "geometry", reason: "required")
        }

        let regionID: String
        if let r = property("regionId") {
            regionID = r.stringValue ?? ""
            sources.append(("trigger.region.id", "properties.regionId"))
        } else {
            regionID = featureID ?? identifier
            sources.append(("trigger.region.id", featureID != nil ? "id" : "properties.identifier"))
        }
        var region: [(key: String, value: JSONValue)]
        sources += [("trigger.region", "geometry"), ("trigger.region.type", "geometry.type")]
        if isPoint {
            guard let c = geometry["coordinates"]?.arrayValue, c.count >= 2, let lon = c[0].doubleValue, let lat = c[1].doubleValue else {
                throw RequestError(identifier: identifier, path: "geometry.coordinates", reason: "expected [longitude, latitude]")
            }
            let radius: JSONValue
            if let given = property("radius") { radius = given } else {
                radius = .number(Self.defaultRadius)
                defaults.insert("radius")
            }
            region = [("type", "circle"), ("id", .string(regionID)),
                      ("center", .object([("latitude", .number(lat)), ("longitude", .number(lon))])), ("radius", radius)]
            sources += [("trigger.region.center", "geometry.coordinates"),
                        ("trigger.region.center.latitude", "geometry.coordinates[1]"),
                        ("trigger.region.center.longitude", "geometry.coordinates[0]"),
                        ("trigger.region.radius", "properties.radius")]
        } else {
            region = [("type", "polygon"), ("id", .string(regionID)), ("geometry", geometry)]
            sources.append(("trigger.region.geometry", "geometry"))
        }
        // QGIS writes a number where a text field holds digits; a zone's name is text either way. An empty name
        // is no name: the default title would be empty.
        if let name = property("name"), Self.text(name) != "" {
            region.insert(("name", Self.text(name).map(JSONValue.string) ?? name), at: 2)
            sources.append(("trigger.region.name", "properties.name"))
        }

        let nestedContent = property("content")
        let nestedTrigger = property("trigger")
        var content = nestedContent?.objectValue ?? []
        var trigger = nestedTrigger?.objectValue ?? []
        sources.append(("content", nestedContent != nil ? "properties.content" : "properties"))
        sources.append(("trigger", nestedTrigger != nil ? "properties.trigger" : "properties"))
        for p in properties where !p.value.isNull {
            if Self.contentKeys.contains(p.key), !content.contains(where: { $0.key == p.key }) {
                content.append(p)
                sources.append(("content.\(p.key)", "properties.\(p.key)"))
            }
            if Self.triggerKeys.contains(p.key), !trigger.contains(where: { $0.key == p.key }) {
                trigger.append(p)
                sources.append(("trigger.\(p.key)", "properties.\(p.key)"))
            }
        }
        func lacks(_ members: [(key: String, value: JSONValue)], _ key: String) -> Bool {
            !members.contains { $0.key == key && !$0.value.isNull }
        }
        // People who draw zones expect them to keep firing, with words in the notification (docs/semantics.md).
        if lacks(trigger, "repeats") {
            trigger.append(("repeats", .bool(true)))
            defaults.insert("repeats")
        }
        if lacks(content, "title") {
            content.append(("title", .string(Self.defaultTitle)))
            defaults.insert("title")
        }
        if lacks(content, "body") {
            content.append(("body", .string(Self.defaultBody)))
            defaults.insert("body")
        }
        trigger.append(("region", .object(region)))
        request = .object([("identifier", .string(identifier)), ("content", .object(content)), ("trigger", .object(trigger))])
    }

    /// `path` (a request field, as `RequestDecoder` names it) as the feature's field.
    func featurePath(_ path: String) -> String {
        var best: (request: String, feature: String)?
        for s in sources where path == s.request || path.hasPrefix(s.request + ".") || path.hasPrefix(s.request + "[") {
            if best == nil || s.request.count > best!.request.count { best = s }
        }
        guard let best else { return path }
        return best.feature + path.dropFirst(best.request.count)
    }

    /// A string as it is, a number as JSON writes it (`7`, `2.5`); nil for anything else.
    static func text(_ v: JSONValue) -> String? {
        if let s = v.stringValue { return s }
        return v.doubleValue.map { JSONValue.number($0).jsonText }
    }
}
