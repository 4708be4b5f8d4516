/// Point location in validated polygonal geometry, in pure Swift, for the per-fix hot path.
///
/// GEOS stays the authority on validity (`GEOSContext.validatedPolygons`) and is the oracle in tests; per fix it is
/// slower and allocates a point per query (GEOS-NOTES.md), so evaluation uses this: every ring's edges (shells and
/// holes of every part) in one flat array, bucketed into horizontal bands so a query only scans the edges that span
/// its latitude. Even-odd ray casting over all rings is exact for valid (multi)polygons with holes.
public struct PolygonLocator: Sendable {
    public enum Location: Sendable, Equatable { case inside, boundary, outside }

    @usableFromInline
    struct Edge: Sendable {
        @usableFromInline var ax: Double, ay: Double, bx: Double, by: Double
        /// An edge along the ±180° meridian made by splitting at the antimeridian: part of the ring, but not a real
        /// border, so it never counts as "near the boundary".
        @usableFromInline var isSeam: Bool
    }

    @usableFromInline let edges: [Edge]
    @usableFromInline let bandOffsets: [Int32]
    @usableFromInline let bandEdges: [Int32]
    @usableFromInline let bandMin: Double
    @usableFromInline let bandScale: Double
    @usableFromInline let bandCount: Int
    public let bounds: BoundingBox
    public var edgeCount: Int { edges.count }

    public init(_ set: PolygonSet) {
        var edges: [Edge] = []
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for polygon in set.polygons {
            for ring in polygon where ring.count >= 2 {
                for k in 1..<ring.count {
                    let a = ring[k - 1], b = ring[k]
                    if a == b { continue }
                    let seam = a.longitude == b.longitude && abs(a.longitude) == 180
                    edges.append(Edge(ax: a.longitude, ay: a.latitude, bx: b.longitude, by: b.latitude, isSeam: seam))
                    minX = min(minX, a.longitude); maxX = max(maxX, a.longitude)
                    minY = min(minY, a.latitude); maxY = max(maxY, a.latitude)
                }
            }
        }
        if edges.isEmpty { minX = 0; maxX = 0; minY = 0; maxY = 0 }
        self.edges = edges
        self.bounds = BoundingBox(minLatitude: minY, maxLatitude: maxY, minLongitude: minX, maxLongitude: maxX)
        // About four edges per band keeps a query's scan short without blowing up memory on spiky shapes.
        let count = max(1, min(8192, edges.count / 4))
        let height = maxY > minY ? (maxY - minY) / Double(count) : 1
        self.bandCount = count
        self.bandMin = minY
        self.bandScale = 1 / height
        var counts = [Int32](repeating: 0, count: count + 1)
        @inline(__always) func band(_ y: Double) -> Int { min(count - 1, max(0, Int((y - minY) * (1 / height)))) }
        for e in edges {
            let lo = band(min(e.ay, e.by)), hi = band(max(e.ay, e.by))
            for b in lo...hi { counts[b + 1] += 1 }
        }
        for b in 0..<count { counts[b + 1] += counts[b] }
        var fill = counts
        var bandEdges = [Int32](repeating: 0, count: Int(counts[count]))
        for (i, e) in edges.enumerated() {
            let lo = band(min(e.ay, e.by)), hi = band(max(e.ay, e.by))
            for b in lo...hi {
                bandEdges[Int(fill[b])] = Int32(i)
                fill[b] += 1
            }
        }
        self.bandOffsets = counts
        self.bandEdges = bandEdges
    }

    @inlinable
    func band(_ y: Double) -> Int { min(bandCount - 1, max(0, Int((y - bandMin) * bandScale))) }

    /// Where the point lies; a point exactly on an edge or vertex is `boundary`.
    @inlinable
    public func locate(latitude y: Double, longitude x: Double) -> Location {
        guard bounds.contains(latitude: y, longitude: x) else { return .outside }
        var inside = false
        let b = band(y)
        return edges.withUnsafeBufferPointer { e in
            bandEdges.withUnsafeBufferPointer { idx in
                for k in Int(bandOffsets[b])..<Int(bandOffsets[b + 1]) {
                    let edge = e[Int(idx[k])]
                    let ayAbove = edge.ay > y, byAbove = edge.by > y
                    if ayAbove != byAbove {
                        let xi = edge.ax + (y - edge.ay) / (edge.by - edge.ay) * (edge.bx - edge.ax)
                        if x < xi { inside.toggle() } else if x == xi { return .boundary }
                    }
                    // Exactly on the edge (including vertices and horizontal edges): the SPEC counts it inside.
                    if y >= min(edge.ay, edge.by), y <= max(edge.ay, edge.by), x >= min(edge.ax, edge.bx),
                        x <= max(edge.ax, edge.bx),
                        (edge.bx - edge.ax) * (y - edge.ay) - (edge.by - edge.ay) * (x - edge.ax) == 0
                    {
                        return .boundary
                    }
                }
                return inside ? .inside : .outside
            }
        }
    }

    /// Whether any real (non-seam) edge lies closer than `metres` to the point: the SPEC's uncertain band test
    /// `|d| < r + h`. Distances use the ellipsoid's local scale at the point, exact enough at band widths of metres
    /// to kilometres.
    @inlinable
    public func hasBoundary(within metres: Double, latitude y: Double, longitude x: Double) -> Bool {
        guard metres > 0, !edges.isEmpty else { return false }
        let scale = Geodesy.metresPerDegree(latitude: y)
        let dLat = Geodesy.latitudeDegrees(spanning: metres)
        let lo = band(y - dLat), hi = band(y + dLat)
        if y - dLat > bounds.maxLatitude || y + dLat < bounds.minLatitude { return false }
        let m2 = metres * metres
        return edges.withUnsafeBufferPointer { e in
            bandEdges.withUnsafeBufferPointer { idx in
                for b in lo...hi {
                    for k in Int(bandOffsets[b])..<Int(bandOffsets[b + 1]) {
                        let edge = e[Int(idx[k])]
                        if edge.isSeam { continue }
                        let py = (edge.ay - y) * scale.latitude, qy = (edge.by - y) * scale.latitude
                        if (py > metres && qy > metres) || (py < -metres && qy < -metres) { continue }
                        let px = Self.wrap(edge.ax - x) * scale.longitude, qx = Self.wrap(edge.bx - x) * scale.longitude
                        if (px > metres && qx > metres) || (px < -metres && qx < -metres) { continue }
                        // Squared distance from the origin (the fix) to segment p–q.
                        let dx = qx - px, dy = qy - py
                        let len2 = dx * dx + dy * dy
                        var t = len2 > 0 ? -(px * dx + py * dy) / len2 : 0
                        t = min(1, max(0, t))
                        let cx = px + t * dx, cy = py + t * dy
                        if cx * cx + cy * cy < m2 { return true }
                    }
                }
                return false
            }
        }
    }

    @inlinable
    static func wrap(_ dLon: Double) -> Double {
        dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon
    }
}
