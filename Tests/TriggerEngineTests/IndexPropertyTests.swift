import Foundation
@testable import Geometry
import PropertyBased
import Testing
import TestSupport
@testable import TriggerEngine

/// The index plus exact tests must find exactly the regions that brute force finds: every region tested against
/// every point, circles by ellipsoidal distance and polygons by GEOS's prepared `covers`.
@Suite struct IndexPropertyTests {
    struct Scenario {
        var circles: [(Coordinate, Double)] = []
        var polygons: [PolygonSet] = []
        var points: [Coordinate] = []
    }

    /// Deterministic scenario from a seed: circles and star-shaped polygons (some with holes) packed into a small
    /// area, random points, and points on and within micrometres of boundaries and vertices.
    static func scenario(seed: Int) -> Scenario {
        var rng = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
        var s = Scenario()
        let base = Coordinate(latitude: rng.double(-70, 70), longitude: rng.double(-179, 178))
        func somewhere() -> Coordinate {
            Coordinate(latitude: base.latitude + rng.double(0, 0.2), longitude: base.longitude + rng.double(0, 0.2))
        }
        for _ in 0..<20 {
            let c = somewhere(), r = rng.double(20, 3000)
            s.circles.append((c, r))
            for _ in 0..<3 {
                let bearing = rng.double(0, 360)
                // Just inside and just outside the boundary (±1 mm).
                s.points.append(Geodesy.destination(from: c, bearing: bearing, distance: r - 0.001))
                s.points.append(Geodesy.destination(from: c, bearing: bearing, distance: r + 0.001))
            }
        }
        for _ in 0..<15 {
            let c = somewhere(), size = rng.double(0.0005, 0.03)
            let n = Int(rng.double(5, 40))
            let angles = (0..<n).map { _ in rng.double(0, 2 * .pi) }.sorted()
            var shell = angles.map { a in
                Coordinate(latitude: c.latitude + size * rng.double(0.4, 1) * sin(a), longitude: c.longitude + size * rng.double(0.4, 1) * cos(a))
            }
            shell.append(shell[0])
            var rings = [shell]
            if rng.double(0, 1) < 0.4 {
                var hole = (0..<6).map { k -> Coordinate in
                    let a = Double(k) / 6 * 2 * .pi
                    return Coordinate(latitude: c.latitude + size * 0.2 * sin(a), longitude: c.longitude + size * 0.2 * cos(a))
                }
                hole.append(hole[0])
                rings.append(hole)
                s.points.append(c)  // in the hole
            }
            s.polygons.append(PolygonSet(polygons: [rings]))
            // Vertices (boundary: inside) and points a hair off the middle of edges.
            for k in 0..<min(4, shell.count - 1) {
                s.points.append(shell[k])
                let a = shell[k], b = shell[k + 1]
                let mid = Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2)
                s.points.append(Coordinate(latitude: mid.latitude + 1e-9, longitude: mid.longitude))
                s.points.append(Coordinate(latitude: mid.latitude - 1e-9, longitude: mid.longitude))
            }
        }
        for _ in 0..<200 { s.points.append(somewhere()) }
        return s
    }

    @Test func indexAgreesWithBruteForce() async throws {
        await propertyCheck(count: 25, input: Gen.int(in: 0...1_000_000_000)) { seed in
            let s = Self.scenario(seed: seed)
            let engine = TriggerEngine()
            let geos = GEOSContext()
            var prepared: [(String, PreparedGeometry)] = []
            for (k, (c, r)) in s.circles.enumerated() {
                _ = try? engine.add(Self.request("c\(k)", .circle(center: c, radius: r)))
            }
            for (k, p) in s.polygons.enumerated() {
                guard let valid = try? geos.validatedPolygons(p) else { continue }
                _ = try? engine.add(Self.request("p\(k)", .polygon(valid)))
                if let g = try? OwnedGeometry(context: geos, polygons: valid).prepared() { prepared.append(("p\(k)", g)) }
            }
            #expect(engine.pendingCount == s.circles.count + prepared.count)
            for (k, point) in s.points.enumerated() {
                var expected = Set<String>()
                for (i, (c, r)) in s.circles.enumerated() {
                    let d = Geodesy.distance(c, point)
                    if abs(d - r) < 1e-4 { continue }  // (points are built ±1 mm off the boundary)
                    if d <= r { expected.insert("c\(i)") }
                }
                for (name, g) in prepared where (try? g.covers(point)) == true { expected.insert(name) }
                var found = Set<String>()
                engine.process(LocationFix(device: "d\(k)", timestamp: Timestamp(microseconds: 1), latitude: point.latitude,
                                           longitude: point.longitude)) { found.insert($0.identifier) }
                // Circles within 0.1 mm of the boundary are left out of the comparison (floating-point tie).
                let ambiguous = Set(s.circles.enumerated().filter { abs(Geodesy.distance($0.element.0, point) - $0.element.1) < 1e-4 }
                    .map { "c\($0.offset)" })
                #expect(found.subtracting(ambiguous) == expected, "seed \(seed) point \(k) \(point)")
            }
        }
    }

    /// The grid alone, at every latitude (rows up to 89.5°, boxes on either side of ±180°, sizes from 10 m to
    /// 300 km, filed in one batch or one at a time through the overflow) and with fixes up to 5 km inaccurate:
    /// every box holding the point, grown by the fix's margin, is reported. Cells whose longitude scale follows
    /// their row's latitude must be found the same way they were filed.
    @Test func gridFindsEveryBoxAtEveryLatitude() async throws {
        await propertyCheck(count: 24, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var rng = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
            var index = RegionIndex(accuracyAllowance: 50)
            let centre = (latitude: rng.double(-89.5, 89.5), longitude: rng.double(-180, 180))
            let batch = seed % 2 == 0
            if batch { index.beginBatch() }
            var boxes: [BoundingBox] = []
            for k in 0..<300 {
                let metres = exp(rng.double(log(10), log(300_000)))
                let lat = min(89.9, max(-89.9, centre.latitude + rng.double(-1.5, 1.5)))
                let dLat = Geodesy.latitudeDegrees(spanning: metres)
                let dLon = min(179, Geodesy.longitudeDegrees(spanning: metres, atLatitude: abs(lat)))
                let lon = max(-180, min(180 - dLon, centre.longitude + rng.double(-3, 3) * dLon / max(dLon, 0.01)))
                let box = BoundingBox(minLatitude: max(-90, lat - dLat), maxLatitude: min(90, lat + dLat),
                                      minLongitude: lon, maxLongitude: min(180, lon + dLon))
                boxes.append(box)
                // Every seventh region has a second, overlapping box (a multipolygon's parts): it shares cells with
                // the first, and the query must still report the region once.
                if seed % 3 == 0, k % 7 == 3 {
                    let inner = BoundingBox(minLatitude: box.minLatitude, maxLatitude: (box.minLatitude + box.maxLatitude) / 2,
                                            minLongitude: box.minLongitude, maxLongitude: box.maxLongitude)
                    index.insert(slot: Int32(k), boxes: [box, inner])
                } else {
                    index.insert(slot: Int32(k), boxes: [box])
                }
            }
            if batch { index.endBatch() }
            var stamps = [UInt32](repeating: 0, count: boxes.count)
            for p in 0..<400 {
                // Other tests share the two threads: let them run between points (this one is all computation).
                if p % 50 == 0 { await Task.yield() }
                // Points inside boxes (a corner region or anywhere) and points around the centre.
                let point: (latitude: Double, longitude: Double)
                if p % 2 == 0 {
                    let b = boxes[Int(rng.next() % UInt64(boxes.count))]
                    point = (rng.double(b.minLatitude, b.maxLatitude), rng.double(b.minLongitude, b.maxLongitude))
                } else {
                    point = (min(90, max(-90, centre.latitude + rng.double(-2, 2))), min(180, max(-180, centre.longitude + rng.double(-4, 4))))
                }
                let margin = [0, 10, 50, 400, 5_000][p % 5] as Double
                var out: [Int32] = []
                var cache = RegionIndex.CellCache()
                index.query(latitude: point.latitude, longitude: point.longitude, margin: margin, stamp: UInt32(p + 1),
                            stamps: &stamps, into: &out, cache: &cache)
                let found = Set(out)
                #expect(found.count == out.count, "seed \(seed) point \(p): a region reported twice")
                // Half the margin, at the point's latitude: clear of the rounding the index may do at the edge.
                let mLat = Geodesy.latitudeDegrees(spanning: margin / 2)
                let mLon = Geodesy.longitudeDegrees(spanning: margin / 2, atLatitude: min(89.9, abs(point.latitude)))
                for (k, b) in boxes.enumerated()
                where point.latitude >= b.minLatitude - mLat && point.latitude <= b.maxLatitude + mLat
                    && point.longitude >= b.minLongitude - mLon && point.longitude <= b.maxLongitude + mLon {
                    #expect(found.contains(Int32(k)), "seed \(seed) point \(p) \(point) margin \(margin) box \(k) \(b)")
                }
            }
        }
    }

    /// Regions of about one size, so the grid has one level and a query of an accurate fix reads one cell (the
    /// path that skips de-duplication when every region has one box): with and without multi-box regions, with
    /// and without regions added since the last rebuild, every box holding the point is reported, and once.
    @Test func oneCellQueriesReportEachRegionOnce() async throws {
        await propertyCheck(count: 16, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var rng = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
            var index = RegionIndex(accuracyAllowance: 50)
            let multiBox = seed % 2 == 0
            var boxes: [[BoundingBox]] = []
            index.beginBatch()
            for k in 0..<400 {
                if k == 360, seed % 3 == 0 { index.endBatch() }  // the rest through the overflow
                let lat = 52 + rng.double(0, 0.05), lon = 13 + rng.double(0, 0.08)
                let metres = rng.double(150, 250)
                let dLat = Geodesy.latitudeDegrees(spanning: metres), dLon = Geodesy.longitudeDegrees(spanning: metres, atLatitude: lat)
                var parts = [BoundingBox(minLatitude: lat - dLat, maxLatitude: lat + dLat, minLongitude: lon - dLon, maxLongitude: lon + dLon)]
                if multiBox, k % 5 == 0 {
                    parts.append(BoundingBox(minLatitude: lat, maxLatitude: lat + dLat, minLongitude: lon - dLon / 2, maxLongitude: lon + dLon))
                }
                boxes.append(parts)
                index.insert(slot: Int32(k), boxes: parts)
            }
            if seed % 3 != 0 { index.endBatch() }
            var stamps = [UInt32](repeating: 0, count: boxes.count)
            var cache = RegionIndex.CellCache()
            for p in 0..<600 {
                let point = (latitude: 52 + rng.double(0, 0.05), longitude: 13 + rng.double(0, 0.08))
                var out: [Int32] = []
                index.query(latitude: point.latitude, longitude: point.longitude, margin: 0, stamp: UInt32(p + 1),
                            stamps: &stamps, into: &out, cache: &cache)
                let found = Set(out)
                #expect(found.count == out.count, "seed \(seed) point \(p): a region reported twice")
                for (k, parts) in boxes.enumerated() where parts.contains(where: { $0.contains(latitude: point.latitude, longitude: point.longitude) }) {
                    #expect(found.contains(Int32(k)), "seed \(seed) point \(p) region \(k)")
                }
            }
        }
    }

    static func request(_ id: String, _ shape: Region.Shape) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(),
                            trigger: LocationTrigger(region: Region(id: id, shape: shape), repeats: true, initialTrigger: true))
    }
}


/// A device's cell cache is tagged with 11 bits of the grid's version: after exactly 2,048 rebuilds the tag comes
/// round again, and the caches must have been cleared, or a fix in the same cell would read a range of entries
/// from a grid that no longer exists (here: region A missed, so a spurious exit).
@Suite struct CellCacheWrapTests {
    @Test func cachesAreClearedWhenTheVersionTagWrapsAround() throws {
        let engine = TriggerEngine()
        let centre = Coordinate(latitude: 48.0, longitude: 11.0)
        // In one batch, so the grid is rebuilt with A in it and the first fix takes its cell cache from that grid.
        try engine.add(contentsOf: [IndexPropertyTests.request("a", .circle(center: centre, radius: 200))])
        var fired: [String] = []
        func fix(_ seconds: Int64) {
            engine.process(LocationFix(device: "d", timestamp: Timestamp(microseconds: seconds * 1_000_000), latitude: centre.latitude,
                                       longitude: centre.longitude)) { fired.append("\($0.identifier) \($0.event)") }
        }
        fix(1)
        #expect(fired == ["a entry"])
        let before = engine.core.index.version
        // 2,048 rebuilds, each replacing region B in a cell west of A's (a smaller key): from the first on, A's
        // range starts after B's, where the cache taken before them says it starts.
        for _ in 0..<2_048 {
            try engine.add(contentsOf: [IndexPropertyTests.request("b", .circle(center: Coordinate(latitude: 48.0, longitude: 10.0), radius: 200))])
        }
        #expect(engine.core.index.version &- before == 2_048)
        fix(2)
        #expect(fired == ["a entry"], "\(fired)")
    }
}
