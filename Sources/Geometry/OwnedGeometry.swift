import CGEOS

/// A GEOS geometry this process owns; destroyed with its context's handle in `deinit`.
public final class OwnedGeometry {
    let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, taking pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit { GEOSGeom_destroy_r(context.handle, pointer) }

    /// Builds a Polygon or MultiPolygon from plain coordinates (x = longitude, y = latitude).
    convenience init(context: GEOSContext, polygons: PolygonSet) throws(GeometryError) {
        let h = context.handle
        var made: [OpaquePointer] = []
        func ring(_ coords: [Coordinate]) throws(GeometryError) -> OpaquePointer {
            guard let seq = GEOSCoordSeq_create_r(h, UInt32(coords.count), 2) else { throw context.takeError("CoordSeq_create") }
            for (k, c) in coords.enumerated() { _ = GEOSCoordSeq_setXY_r(h, seq, UInt32(k), c.longitude, c.latitude) }
            // The ring takes ownership of the sequence, even when it fails.
            guard let r = GEOSGeom_createLinearRing_r(h, seq) else { throw context.takeError("createLinearRing") }
            return r
        }
        do throws(GeometryError) {
            for polygon in polygons.polygons {
                guard let first = polygon.first else { continue }
                let shell = try ring(first)
                var holes: [OpaquePointer?] = []
                do throws(GeometryError) {
                    for hole in polygon.dropFirst() { holes.append(try ring(hole)) }
                } catch {
                    GEOSGeom_destroy_r(h, shell)
                    for r in holes { if let r { GEOSGeom_destroy_r(h, r) } }
                    throw error
                }
                let p = holes.withUnsafeMutableBufferPointer { buf in
                    GEOSGeom_createPolygon_r(h, shell, buf.baseAddress, UInt32(buf.count))
                }
                guard let p else { throw context.takeError("createPolygon") }
                made.append(p)
            }
        } catch {
            for g in made { GEOSGeom_destroy_r(h, g) }
            throw error
        }
        let result: OpaquePointer?
        if made.count == 1 {
            result = made[0]
        } else {
            var parts: [OpaquePointer?] = made
            result = parts.withUnsafeMutableBufferPointer { buf in
                GEOSGeom_createCollection_r(h, Int32(GEOS_MULTIPOLYGON.rawValue), buf.baseAddress, UInt32(buf.count))
            }
        }
        guard let result else { throw context.takeError("createCollection") }
        self.init(context: context, taking: result)
    }

    /// nil when valid, otherwise GEOS's reason, e.g. "Self-intersection[10 20]".
    public var invalidityReason: String? {
        let h = context.handle
        if GEOSisValid_r(h, pointer) == 1 { return nil }
        guard let reason = GEOSisValidReason_r(h, pointer) else { return "invalid geometry" }
        defer { GEOSFree_r(h, reason) }
        return String(cString: reason)
    }

    /// The intersection with another geometry.
    public func intersection(_ other: OwnedGeometry) throws(GeometryError) -> OwnedGeometry {
        guard let g = GEOSIntersection_r(context.handle, pointer, other.pointer) else {
            throw context.takeError("Intersection")
        }
        return OwnedGeometry(context: context, taking: g)
    }

    /// An axis-aligned rectangle.
    static func box(context: GEOSContext, minX: Double, minY: Double, maxX: Double, maxY: Double) throws(GeometryError) -> OwnedGeometry {
        let ring = [
            Coordinate(latitude: minY, longitude: minX), Coordinate(latitude: minY, longitude: maxX),
            Coordinate(latitude: maxY, longitude: maxX), Coordinate(latitude: maxY, longitude: minX),
            Coordinate(latitude: minY, longitude: minX),
        ]
        return try OwnedGeometry(context: context, polygons: PolygonSet(polygons: [[ring]]))
    }

    /// The polygons of this geometry (Polygon, MultiPolygon, or the polygonal parts of a collection) as coordinates.
    public var polygonSet: PolygonSet {
        let h = context.handle
        var out: [[[Coordinate]]] = []
        func ringCoords(_ ring: OpaquePointer) -> [Coordinate] {
            guard let seq = GEOSGeom_getCoordSeq_r(h, ring) else { return [] }
            var n: UInt32 = 0
            _ = GEOSCoordSeq_getSize_r(h, seq, &n)
            var coords: [Coordinate] = []
            coords.reserveCapacity(Int(n))
            for k in 0..<n {
                var x = 0.0, y = 0.0
                _ = GEOSCoordSeq_getXY_r(h, seq, k, &x, &y)
                coords.append(Coordinate(latitude: y, longitude: x))
            }
            return coords
        }
        func visit(_ g: OpaquePointer) {
            let type = GEOSGeomTypeId_r(h, g)
            if type == Int32(GEOS_POLYGON.rawValue) {
                if GEOSisEmpty_r(h, g) == 1 { return }
                guard let shell = GEOSGetExteriorRing_r(h, g) else { return }
                var rings = [ringCoords(shell)]
                let holes = GEOSGetNumInteriorRings_r(h, g)
                if holes > 0 {
                    for k in 0..<holes { if let r = GEOSGetInteriorRingN_r(h, g, k) { rings.append(ringCoords(r)) } }
                }
                out.append(rings)
            } else if type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) {
                let n = GEOSGetNumGeometries_r(h, g)
                if n > 0 { for k in 0..<n { if let part = GEOSGetGeometryN_r(h, g, k) { visit(part) } } }
            }
        }
        visit(pointer)
        return PolygonSet(polygons: out)
    }

    /// Prepares the geometry for repeated point queries (point locator and index built lazily by GEOS).
    public func prepared() throws(GeometryError) -> PreparedGeometry {
        guard let p = GEOSPrepare_r(context.handle, pointer) else { throw context.takeError("Prepare") }
        return PreparedGeometry(geometry: self, taking: p)
    }
}
