import CGEOS

/// A GEOS prepared geometry. Its lazily built caches are unguarded in GEOS 3.11, so it stays on its context's thread.
public final class PreparedGeometry {
    /// Kept alive: the prepared geometry points into it.
    public let geometry: OwnedGeometry
    let pointer: OpaquePointer

    init(geometry: OwnedGeometry, taking pointer: OpaquePointer) {
        self.geometry = geometry
        self.pointer = pointer
    }

    deinit { GEOSPreparedGeom_destroy_r(geometry.context.handle, pointer) }

    /// Whether the point lies in the geometry or on its boundary (OGC `covers`: the SPEC's boundary rule).
    /// Creates one GEOS point per call: reusing a point by rewriting its coordinates gives wrong answers in 3.11.
    public func covers(_ c: Coordinate) throws(GeometryError) -> Bool {
        let h = geometry.context.handle
        guard let point = GEOSGeom_createPointFromXY_r(h, c.longitude, c.latitude) else {
            throw geometry.context.takeError("createPointFromXY")
        }
        defer { GEOSGeom_destroy_r(h, point) }
        switch GEOSPreparedCovers_r(h, pointer, point) {
        case 1: return true
        case 0: return false
        default: throw geometry.context.takeError("PreparedCovers")
        }
    }
}
