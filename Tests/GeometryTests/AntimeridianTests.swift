@testable import Geometry
import Testing

@Suite struct AntimeridianTests {
    let geos = GEOSContext()

    func ring(_ lonLat: [(Double, Double)]) -> [Coordinate] { lonLat.map { Coordinate(latitude: $0.1, longitude: $0.0) } }

    @Test func polygonCrossingTheAntimeridianIsSplitAndLocatesOnBothSides() throws {
        // A box from 179°E to 179°W (2° wide), written with its natural longitudes.
        let set = PolygonSet(polygons: [[ring([(179, -1), (-179, -1), (-179, 1), (179, 1), (179, -1)])]])
        let split = try geos.validatedPolygons(set)
        #expect(split.polygons.count == 2)
        let locator = PolygonLocator(split)
        #expect(locator.locate(latitude: 0, longitude: 179.5) == .inside)
        #expect(locator.locate(latitude: 0, longitude: -179.5) == .inside)
        #expect(locator.locate(latitude: 0, longitude: 0) == .outside)
        #expect(locator.locate(latitude: 0, longitude: 178.5) == .outside)
        // The cut along 180° is not a real border: no "near the boundary" there.
        #expect(!locator.hasBoundary(within: 1000, latitude: 0, longitude: 179.9999))
        #expect(locator.hasBoundary(within: 1000, latitude: 0.995, longitude: 179.9999))
    }

    @Test func longitudeNoiseJustPast180IsTolerated() throws {
        let set = PolygonSet(polygons: [[ring([(170, 60), (180.00000000000006, 60), (180.00000000000006, 70), (170, 70), (170, 60)])]])
        let v = try geos.validatedPolygons(set)
        #expect(v.polygons[0][0].allSatisfy { $0.longitude <= 180 })
    }

    @Test func outOfRangeLongitudeIsRefused() {
        let set = PolygonSet(polygons: [[ring([(170, 60), (181, 60), (181, 70), (170, 70), (170, 60)])]])
        #expect(throws: GeometryError.self) { try geos.validatedPolygons(set) }
    }
}
