import Foundation
@testable import Geometry
import Testing
import TestSupport

/// The locator's grid answers exactly what ray casting over every edge answers: the same point-in-polygon and the
/// same "edge within metres", on spiky stars, shapes with holes, several parts, rectilinear shapes whose edges lie
/// on the points' rows and columns, and shapes split at the antimeridian; for random points, vertices, points on
/// edges and points a hair off them.
@Suite struct PolygonLocatorGridTests {
    /// Even-odd ray casting over every edge: the locator's answers before it had a grid, with the same comparisons.
    static func scanEvery(_ l: PolygonLocator, _ edges: [PolygonLocator.Edge], latitude y: Double, longitude x: Double) -> PolygonLocator.Location {
        guard l.bounds.contains(latitude: y, longitude: x) else { return .outside }
        var inside = false
        for edge in edges {
            if (edge.ay > y) != (edge.by > y) {
                let xi = edge.ax + (y - edge.ay) / (edge.by - edge.ay) * (edge.bx - edge.ax)
                if x < xi { inside.toggle() } else if x == xi { return .boundary }
            }
            if y >= min(edge.ay, edge.by), y <= max(edge.ay, edge.by), x >= min(edge.ax, edge.bx),
                x <= max(edge.ax, edge.bx),
                (edge.bx - edge.ax) * (y - edge.ay) - (edge.by - edge.ay) * (x - edge.ax) == 0
            {
                return .boundary
            }
        }
        return inside ? .inside : .outside
    }

    static func nearEvery(_ edges: [PolygonLocator.Edge], within metres: Double, latitude y: Double, longitude x: Double) -> Bool {
        guard metres > 0 else { return false }
        let scale = Geodesy.metresPerDegree(latitude: y)
        for edge in edges where !edge.isSeam {
            let py = (edge.ay - y) * scale.latitude, qy = (edge.by - y) * scale.latitude
            let px = PolygonGrid.wrap(edge.ax - x) * scale.longitude, qx = PolygonGrid.wrap(edge.bx - x) * scale.longitude
            let dx = qx - px, dy = qy - py
            let len2 = dx * dx + dy * dy
            let t = min(1, max(0, len2 > 0 ? -(px * dx + py * dy) / len2 : 0))
            let cx = px + t * dx, cy = py + t * dy
            if cx * cx + cy * cy < metres * metres { return true }
        }
        return false
    }

    static func star(_ rng: inout SplitMix, center: Coordinate, radius: Double, vertices n: Int, spike: Double) -> [Coordinate] {
        let perDegree = Geodesy.metresPerDegree(latitude: center.latitude)
        var ring = (0..<n).map { k -> Coordinate in
            let a = Double(k) / Double(n) * 2 * .pi
            let r = radius * rng.double(1 - spike, 1)
            return Coordinate(latitude: center.latitude + r * sin(a) / perDegree.latitude,
                              longitude: center.longitude + r * cos(a) / perDegree.longitude)
        }
        ring.append(ring[0])
        return ring
    }

    /// A staircase of unit steps on a lattice of 0.001°: edges on the rows and columns queries land on.
    static func staircase(_ rng: inout SplitMix, origin: Coordinate, steps: Int) -> [Coordinate] {
        let d = 0.001
        var ring = [origin]
        var x = origin.longitude, y = origin.latitude
        for _ in 0..<steps {
            x += d * Double(rng.int(1, 3)); ring.append(Coordinate(latitude: y, longitude: x))
            y += d * Double(rng.int(1, 3)); ring.append(Coordinate(latitude: y, longitude: x))
        }
        ring.append(Coordinate(latitude: y, longitude: origin.longitude))
        ring.append(origin)
        return ring
    }

    static func shapes(_ rng: inout SplitMix, count: Int) throws -> [PolygonSet] {
        let geos = GEOSContext()
        var out: [PolygonSet] = []
        for k in 0..<count {
            let center = Coordinate(latitude: rng.double(-80, 80), longitude: rng.double(-170, 170))
            let radius = rng.pick([30.0, 300, 5_000, 200_000])
            let n = Int((3.0 * pow(1500.0 / 3, rng.double(0, 1))).rounded())
            switch k % 5 {
            case 0:
                out.append(PolygonSet(polygons: [[star(&rng, center: center, radius: radius, vertices: n, spike: rng.double(0, 0.9))]]))
            case 1:
                let shell = star(&rng, center: center, radius: radius, vertices: n, spike: 0.3)
                let hole = star(&rng, center: center, radius: radius * 0.6, vertices: max(3, n / 2), spike: 0.5).reversed()
                out.append(PolygonSet(polygons: [[shell, Array(hole)]]))
            case 2:
                let east = Coordinate(latitude: center.latitude, longitude: center.longitude + 2 * radius / Geodesy.metresPerDegree(latitude: center.latitude).longitude + 1e-4)
                out.append(PolygonSet(polygons: [[star(&rng, center: center, radius: radius, vertices: n, spike: 0.8)],
                                                 [star(&rng, center: east, radius: radius, vertices: max(3, n / 3), spike: 0.2)]]))
            case 3:
                out.append(PolygonSet(polygons: [[staircase(&rng, origin: Coordinate(latitude: (center.latitude * 1000).rounded() / 1000,
                                                                                      longitude: (center.longitude * 1000).rounded() / 1000),
                                                            steps: rng.int(1, 60))]]))
            default:
                // Across the antimeridian, split by GEOS into two parts with seam edges along ±180°.
                let c = Coordinate(latitude: center.latitude / 2, longitude: 180 - rng.double(0, 0.01))
                let ring = star(&rng, center: c, radius: rng.pick([300.0, 5_000]), vertices: n, spike: 0.5)
                    .map { Coordinate(latitude: $0.latitude, longitude: $0.longitude > 180 ? $0.longitude - 360 : $0.longitude) }
                out.append(try geos.validatedPolygons(PolygonSet(polygons: [[ring]])))
            }
        }
        return out
    }

    /// Query points: random in and around the box, every kind of exact coordinate a ray can meet.
    static func points(_ rng: inout SplitMix, _ l: PolygonLocator, _ edges: [PolygonLocator.Edge], count: Int) -> [(Double, Double)] {
        let b = l.bounds
        let h = (b.maxLatitude - b.minLatitude) * 0.1, w = (b.maxLongitude - b.minLongitude) * 0.1
        var out: [(Double, Double)] = []
        for _ in 0..<count {
            let e = edges[rng.int(0, edges.count - 1)]
            switch rng.int(0, 6) {
            case 0: out.append((e.ay, e.ax))                                     // a vertex
            case 1: out.append(((e.ay + e.by) / 2, (e.ax + e.bx) / 2))           // on (or a rounding off) an edge
            case 2: out.append((e.ay, rng.double(b.minLongitude - w, b.maxLongitude + w)))  // a vertex's row
            case 3: out.append((rng.double(b.minLatitude - h, b.maxLatitude + h), e.ax))    // a vertex's column
            case 4:
                let t = rng.double(0, 1), eps = rng.pick([1e-12, 1e-10, 1e-9, 1e-8]) * (rng.chance(0.5) ? 1 : -1)
                out.append((e.ay + t * (e.by - e.ay) + eps, e.ax + t * (e.bx - e.ax) - eps))  // a hair off an edge
            default: out.append((rng.double(b.minLatitude - h, b.maxLatitude + h), rng.double(b.minLongitude - w, b.maxLongitude + w)))
            }
        }
        return out
    }

    @Test func gridAnswersWhatEveryEdgeAnswers() async throws {
        let seed: UInt64 = 0x5EED_6E1D
        var rng = SplitMix(seed: seed)
        var located = [PolygonLocator.Location: Int](), near = 0, measured = 0
        for set in try Self.shapes(&rng, count: 150) {
            let l = PolygonLocator(set)
            // The shape's edges once each, in ring order: what the locator copies into its cells.
            let edges = PolygonLocator.edges(of: set)
            #expect(edges.count == l.edgeCount)
            for (y, x) in Self.points(&rng, l, edges, count: 400) {
                let expected = Self.scanEvery(l, edges, latitude: y, longitude: x)
                let got = l.locate(latitude: y, longitude: x)
                #expect(got == expected, "seed \(seed): (\(y), \(x)) in a shape of \(l.edgeCount) edges")
                located[got, default: 0] += 1
                let metres = rng.pick([0.01, 0.5, 5, 50, 500, 20_000])
                let nearExpected = Self.nearEvery(edges, within: metres, latitude: y, longitude: x)
                #expect(l.hasBoundary(within: metres, latitude: y, longitude: x) == nearExpected,
                        "seed \(seed): within \(metres) m of (\(y), \(x)) in a shape of \(l.edgeCount) edges")
                if nearExpected { near += 1 }
                measured += 1
            }
            await Task.yield()
        }
        // The points reach every answer, so the comparison above means something for each.
        #expect(located[.inside, default: 0] > 1000 && located[.outside, default: 0] > 1000 && located[.boundary, default: 0] > 1000)
        #expect(near > 1000 && measured - near > 1000)
    }

    @Test func mostQueriesInsideADetailedShapeAnswerFromOneCell() {
        var rng = SplitMix(seed: 7)
        let center = Coordinate(latitude: 52.5, longitude: 13.4)
        let l = PolygonLocator(PolygonSet(polygons: [[Self.star(&rng, center: center, radius: 500, vertices: 1000, spike: 0.3)]]))
        // Cells with no edges cover the star's core (radius below 350 m): at least the disc of 300 m, ~28 % of the box.
        let empty = l.cellState.filter { $0 < PolygonGrid.edgeCell }.count
        #expect(Double(empty) / Double(l.cellState.count) > 0.28, "\(empty) of \(l.cellState.count) cells empty")
        #expect(l.locate(latitude: center.latitude, longitude: center.longitude) == .inside)
        #expect(l.cellState[l.grid.row(center.latitude) * Int(l.grid.columns) + l.grid.column(center.longitude)] == PolygonGrid.insideCell)
    }
}

extension PolygonLocatorGridTests {
    /// The grid is one cache line, so the engine's 64-byte-aligned array of them costs one load per candidate.
    @Test func gridIsOneCacheLine() {
        #expect(MemoryLayout<PolygonGrid>.size == 64)
        #expect(MemoryLayout<PolygonGrid>.stride == 64)
    }

    /// A grid with no polygon answers outside everywhere and finds no boundary, as the engine's other slots need.
    @Test func emptyGridIsOutsideEverywhere() {
        let empty = PolygonGrid.empty
        for (y, x) in [(0.0, 0.0), (52.5, 13.4), (-89.9, 179.9), (10, -180)] {
            #expect(empty.locate(latitude: y, longitude: x) == .outside)
            #expect(!empty.hasBoundary(within: 50_000, latitude: y, longitude: x))
        }
    }
}
