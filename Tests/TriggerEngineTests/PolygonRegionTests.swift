import Geometry
import Testing
@testable import TriggerEngine

@Suite struct PolygonRegionTests {
    @Test func holeIsOutside() throws {
        let h = Harness()
        try h.polygon("ring", geometry: """
            {"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[4,4],[6,4],[6,6],[4,6],[4,4]]]}
            """)
        h.fix("d", 0, 20, 20)
        #expect(h.fix("d", 1, 5, 5).isEmpty)  // in the hole
        #expect(Harness.summary(h.fix("d", 2, 2, 2)) == ["entry:ring:d"])
        #expect(Harness.summary(h.fix("d", 3, 5, 5)) == ["exit:ring:d"])
    }

    @Test func multipolygonPartsAreOneRegion() throws {
        let h = Harness()
        try h.polygon("two", geometry: """
            {"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,6],[5,5]]]]}
            """)
        h.fix("d", 0, 3, 3)
        #expect(Harness.summary(h.fix("d", 1, 0.5, 0.5)) == ["entry:two:d"])
        #expect(h.fix("d", 2, 5.5, 5.5).isEmpty)  // moved to the other part: still inside
        #expect(Harness.summary(h.fix("d", 3, 3, 3)) == ["exit:two:d"])
    }

    @Test func antimeridianPolygonWorksOnBothSides() throws {
        let h = Harness()
        try h.polygon("fiji", geometry: """
            {"type":"Polygon","coordinates":[[[178,-18],[-179,-18],[-179,-16],[178,-16],[178,-18]]]}
            """)
        h.fix("d", 0, -17, 170)
        #expect(Harness.summary(h.fix("d", 1, -17, 179.5)) == ["entry:fiji:d"])
        #expect(h.fix("d", 2, -17, -179.5).isEmpty)  // crossed the antimeridian, still inside
        #expect(Harness.summary(h.fix("d", 3, -17, -178)) == ["exit:fiji:d"])
    }

    @Test func circleAtHighLatitudeUsesTrueDistance() throws {
        let h = Harness()
        let center = Coordinate(latitude: 78.22, longitude: 15.65)  // Longyearbyen
        try h.circle("svalbard", lat: center.latitude, lon: center.longitude, radius: 500)
        h.fix("d", 0, 78.3, 15.65)
        // East-west at 78°N a degree of longitude is only ~23 km: a naive degree box would be wildly off.
        let inside = destination(center, bearing: 90, metres: 499)
        let outside = destination(center, bearing: 90, metres: 501)
        #expect(Harness.summary(h.fix("d", 1, inside.latitude, inside.longitude)) == ["entry:svalbard:d"])
        #expect(Harness.summary(h.fix("d", 2, outside.latitude, outside.longitude)) == ["exit:svalbard:d"])
    }

    @Test func circleAcrossTheAntimeridian() throws {
        let h = Harness()
        try h.circle("dateline", lat: 0, lon: 179.9995, radius: 200)
        h.fix("d", 0, 1, 1)
        let east = destination(Coordinate(latitude: 0, longitude: 179.9995), bearing: 90, metres: 150)
        #expect(east.longitude < 0)
        #expect(Harness.summary(h.fix("d", 1, east.latitude, east.longitude)) == ["entry:dateline:d"])
    }
}
