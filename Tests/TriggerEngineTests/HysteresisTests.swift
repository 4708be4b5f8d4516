import Geometry
import Testing
@testable import TriggerEngine

@Suite struct HysteresisTests {
    let center = Coordinate(latitude: 45, longitude: 7)

    func at(_ metres: Double) -> Coordinate { destination(center, bearing: 90, metres: metres) }

    @Test func uncertainBandChangesNothing() throws {
        let h = Harness()
        try h.circle("c", lat: center.latitude, lon: center.longitude, radius: 200, #""hysteresis":20"#)
        h.fix("d", 0, at(400).latitude, at(400).longitude)
        // d = 200 - 190 = 10 m < r + h = 20 m: uncertain, still outside.
        #expect(h.fix("d", 1, at(190).latitude, at(190).longitude).isEmpty)
        #expect(Harness.summary(h.fix("d", 2, at(179).latitude, at(179).longitude)) == ["entry:c:d"])
        // Back out into the band: still inside.
        #expect(h.fix("d", 3, at(215).latitude, at(215).longitude).isEmpty)
        #expect(Harness.summary(h.fix("d", 4, at(221).latitude, at(221).longitude)) == ["exit:c:d"])
    }

    @Test func accuracyWidensTheBand() throws {
        let h = Harness()
        try h.circle("c", lat: center.latitude, lon: center.longitude, radius: 200)
        h.fix("d", 0, at(400).latitude, at(400).longitude)
        // 150 m from the centre is 50 m inside, but a 60 m accuracy circle straddles the boundary.
        #expect(h.fix("d", 1, at(150).latitude, at(150).longitude, accuracy: 60).isEmpty)
        #expect(Harness.summary(h.fix("d", 2, at(150).latitude, at(150).longitude, accuracy: 40)) == ["entry:c:d"])
    }

    @Test func uncertainFirstFixKeepsStateUnknown() throws {
        let h = Harness()
        try h.circle("c", lat: center.latitude, lon: center.longitude, radius: 200)
        h.fix("d", 0, at(210).latitude, at(210).longitude, accuracy: 30)  // uncertain: unknown
        // unknown → inside is silent (no initialTrigger), not an entry from "outside".
        #expect(h.fix("d", 1, at(0).latitude, at(0).longitude).isEmpty)
    }

    @Test func polygonBandUsesDistanceToTheNearestEdge() throws {
        let h = Harness()
        // A 0.01° square near the equator: each side ≈ 1.1 km.
        try h.polygon("sq", geometry: #"{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]]}"#,
                      #""hysteresis":50"#)
        h.fix("d", 0, 0.005, -0.01)
        // 0.0003° ≈ 33 m inside the west edge: within the 50 m band.
        #expect(h.fix("d", 1, 0.005, 0.0003).isEmpty)
        // 0.0006° ≈ 67 m inside: beyond the band.
        #expect(Harness.summary(h.fix("d", 2, 0.005, 0.0006)) == ["entry:sq:d"])
        #expect(h.fix("d", 3, 0.005, -0.0003).isEmpty)
        #expect(Harness.summary(h.fix("d", 4, 0.005, -0.0006)) == ["exit:sq:d"])
    }

    @Test func veryInaccurateFixFarFromAnInsideFenceIsUncertain() throws {
        let h = Harness()
        try h.circle("c", lat: center.latitude, lon: center.longitude, radius: 100)
        h.fix("d", 0, at(500).latitude, at(500).longitude)
        h.fix("d", 1, center.latitude, center.longitude)
        // 3 km away but with 5 km accuracy: uncertain, the device stays inside.
        #expect(h.fix("d", 2, at(3000).latitude, at(3000).longitude, accuracy: 5000).isEmpty)
        #expect(h.engine.status(ofDevice: "d")?.memberships.count == 1)
    }
}
