import JSON

extension RequestDecoder {
    /// A region file: a JSON array of requests (SPEC §1), a single request, or GeoJSON (a FeatureCollection, or one
    /// Feature) whose features are regions drawn in any GIS tool (see `convertGeoJSON`).
    public func decodeRegionFile(_ json: JSONValue, geoJSON options: GeoJSONOptions = GeoJSONOptions()) throws(RequestError) -> [NotificationRequest] {
        try requests(of: convertGeoJSON(json, options: options))
    }

    /// A conversion's requests: decoded already for GeoJSON, decoded here for SPEC §1 JSON.
    public func requests(of converted: GeoJSONConversion) throws(RequestError) -> [NotificationRequest] {
        if let requests = converted.requests { return requests }
        return try decodeRequests(converted.json)
    }

    /// GeoJSON as requests; anything else is returned as it is, for `decodeRequests`. Every place that takes
    /// GeoJSON (region files, `serve --regions`, the API's bodies) reads it here.
    ///
    /// For features: the geometry is the region (Polygon/MultiPolygon; a Point is a circle of `radius` metres);
    /// properties carry the request: `content` (or flat `title`, `subtitle`, `body`, …), `trigger` (or flat trigger
    /// fields such as `notifyOnExit`, `repeats`, `dwell`), `regionId` (else the feature id, else the identifier) and
    /// `name` for the region. The identifier is `properties.identifier`, else the `idProperty` option's property,
    /// else the feature's `id`, else derived from the geometry and name. GeoJSON defaults differ from SPEC §1's for
    /// people who draw zones: `repeats` true, a title and body, a Point's radius 100 m (docs/semantics.md).
    public func convertGeoJSON(_ json: JSONValue, options: GeoJSONOptions = GeoJSONOptions()) throws(RequestError) -> GeoJSONConversion {
        var derivedIDs: [String: Int] = [:]
        switch json["type"]?.stringValue {
        case "Feature":
            let (request, feature) = try decodeFeature(json, options: options, derivedIDs: &derivedIDs)
            return GeoJSONConversion(json: feature.request, requests: [request], defaults: [feature.defaultsList])
        case "FeatureCollection":
            guard let features = json["features"]?.arrayValue else {
                throw RequestError(path: "features", reason: "a FeatureCollection needs a \"features\" array")
            }
            var objects: [JSONValue] = []
            var requests: [NotificationRequest] = []
            var defaults: [[String]] = []
            objects.reserveCapacity(features.count)
            requests.reserveCapacity(features.count)
            for (k, item) in features.enumerated() {
                do throws(RequestError) {
                    let (request, feature) = try decodeFeature(item, options: options, derivedIDs: &derivedIDs)
                    objects.append(feature.request)
                    requests.append(request)
                    defaults.append(feature.defaultsList)
                } catch {
                    var e = error
                    e.path = e.path.isEmpty ? "features[\(k)]" : "features[\(k)].\(e.path)"
                    throw e
                }
            }
            return GeoJSONConversion(json: .array(objects), requests: requests, defaults: defaults)
        default:
            return GeoJSONConversion(json: json, requests: nil, defaults: [])
        }
    }

    /// The SPEC §1 form of a request body (the service accepts what the CLI's region files hold): a FeatureCollection
    /// becomes an array of request objects, a Feature one request object, anything else stays as it is. Journaled and
    /// listed in this form, so a restart never needs the GeoJSON again.
    public static func requestsJSON(fromGeoJSON json: JSONValue, options: GeoJSONOptions = GeoJSONOptions()) throws(RequestError) -> JSONValue {
        try RequestDecoder().convertGeoJSON(json, options: options).json
    }

    /// One feature converted and decoded, an error's path rewritten to the feature's own fields.
    private func decodeFeature(_ json: JSONValue, options: GeoJSONOptions, derivedIDs: inout [String: Int])
        throws(RequestError) -> (NotificationRequest, GeoJSONFeature) {
        let feature = try GeoJSONFeature(json, options: options, derivedIDs: &derivedIDs)
        do throws(RequestError) {
            return (try decodeRequest(feature.request), feature)
        } catch {
            var e = error
            e.path = feature.featurePath(e.path)
            throw e
        }
    }
}
