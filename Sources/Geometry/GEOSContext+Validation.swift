extension GEOSContext {
    /// Longitudes this far past ±180 are source noise (Natural Earth has 180.00000000000006) and are clamped.
    static let longitudeTolerance = 1e-9

    /// Checks polygonal geometry the way the SPEC requires and returns it ready for point location:
    /// ranges, ring closure and size are checked here with the offending ring named; validity (self-intersection,
    /// nested shells, …) is GEOS's verdict with GEOS's reason. A polygon that crosses the antimeridian (an edge
    /// longer than 180° of longitude) is split there into parts that each lie within [-180, 180].
    func validatedPolygons(_ input: PolygonSet) throws(GeometryError) -> PolygonSet {
        guard !input.polygons.isEmpty else { throw GeometryError("the geometry has no polygons") }
        var cleaned: [[[Coordinate]]] = []
        var crossing: [Bool] = []
        for (p, polygon) in input.polygons.enumerated() {
            guard !polygon.isEmpty else { throw GeometryError("polygon \(p) has no rings") }
            var rings: [[Coordinate]] = []
            var crosses = false
            for (r, ring) in polygon.enumerated() {
                let name = input.polygons.count > 1 ? "polygon \(p) ring \(r)" : "ring \(r)"
                guard ring.count >= 4 else {
                    throw GeometryError("\(name) has \(ring.count) positions; a linear ring needs at least 4")
                }
                var fixed = ring
                for (k, c) in ring.enumerated() {
                    guard c.latitude.isFinite, c.longitude.isFinite else {
                        throw GeometryError("\(name) position \(k) is not a finite number")
                    }
                    guard c.latitude >= -90, c.latitude <= 90 else {
                        throw GeometryError("\(name) position \(k) has latitude \(c.latitude), outside [-90, 90]")
                    }
                    guard abs(c.longitude) <= 180 + GEOSContext.longitudeTolerance else {
                        throw GeometryError("\(name) position \(k) has longitude \(c.longitude), outside [-180, 180]")
                    }
                    fixed[k].longitude = min(180, max(-180, c.longitude))
                }
                guard fixed.first == fixed.last else {
                    throw GeometryError("\(name) is not closed: its first and last positions differ")
                }
                for k in 1..<fixed.count {
                    let a = fixed[k - 1].longitude, b = fixed[k].longitude
                    // Edges that run along the ±180 seam itself (as in Natural Earth's pre-split countries) are not crossings.
                    if abs(b - a) > 180, !(abs(a) == 180 && abs(b) == 180) { crosses = true }
                }
                rings.append(fixed)
            }
            cleaned.append(rings)
            crossing.append(crosses)
        }

        var result: [[[Coordinate]]] = []
        for (polygon, crosses) in zip(cleaned, crossing) {
            if !crosses {
                result.append(polygon)
                continue
            }
            // Unwrap to continuous longitudes in [0, 360), validate there, then cut at 180 and shift the east part back.
            let shifted = polygon.map { ring in
                ring.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude < 0 ? $0.longitude + 360 : $0.longitude) }
            }
            let geometry = try OwnedGeometry(context: self, polygons: PolygonSet(polygons: [shifted]))
            if let reason = geometry.invalidityReason {
                throw GeometryError("\(reason) (after unwrapping across the antimeridian)")
            }
            let west = try geometry.intersection(try .box(context: self, minX: 0, minY: -90, maxX: 180, maxY: 90)).polygonSet
            let east = try geometry.intersection(try .box(context: self, minX: 180, minY: -90, maxX: 360, maxY: 90)).polygonSet
            result.append(contentsOf: west.polygons)
            result.append(contentsOf: east.polygons.map { rings in
                rings.map { ring in ring.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude - 360) } }
            })
        }
        let output = PolygonSet(polygons: result)
        let geometry = try OwnedGeometry(context: self, polygons: output)
        if let reason = geometry.invalidityReason { throw GeometryError(reason) }
        return output
    }
}
