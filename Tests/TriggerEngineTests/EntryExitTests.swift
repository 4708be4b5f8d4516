import Geometry
import Testing
@testable import TriggerEngine

@Suite struct EntryExitTests {
    @Test func firstFixInsideIsSilentWithoutInitialTrigger() throws {
        let h = Harness()
        try h.circle("depot", lat: 52.52, lon: 13.405, radius: 150)
        #expect(h.fix("truck", 0, 52.52, 13.405).isEmpty)
        #expect(h.engine.status(ofDevice: "truck")?.memberships.map(\.identifier) == ["depot"])
    }

    @Test func firstFixInsideNotifiesWithInitialTrigger() throws {
        let h = Harness()
        try h.circle("depot", lat: 52.52, lon: 13.405, radius: 150, #""initialTrigger":true"#)
        #expect(Harness.summary(h.fix("truck", 0, 52.52, 13.405)) == ["entry:depot:truck"])
    }

    @Test func outsideThenInsideIsAnEntryAndBackOutIsAnExit() throws {
        let h = Harness()
        try h.circle("depot", lat: 52.52, lon: 13.405, radius: 150)
        #expect(h.fix("truck", 0, 52.53, 13.405).isEmpty)
        #expect(Harness.summary(h.fix("truck", 10, 52.52, 13.405)) == ["entry:depot:truck"])
        #expect(h.fix("truck", 20, 52.5201, 13.405).isEmpty)
        #expect(Harness.summary(h.fix("truck", 30, 52.53, 13.405)) == ["exit:depot:truck"])
        #expect(h.engine.statistics.entries == 1 && h.engine.statistics.exits == 1)
    }

    @Test func farAwayFirstFixEstablishesOutsideSoTheNextEntryNotifies() throws {
        let h = Harness()
        try h.circle("depot", lat: 52.52, lon: 13.405, radius: 150)
        h.fix("truck", 0, 10, 10)  // nowhere near: never returned by the index, still "outside"
        #expect(Harness.summary(h.fix("truck", 10, 52.52, 13.405)) == ["entry:depot:truck"])
    }

    @Test func notifyFlagsChooseWhichTransitionsNotify() throws {
        let h = Harness()
        try h.circle("arrive", lat: 0, lon: 0, radius: 100, #""notifyOnExit":false"#)
        try h.circle("leave", lat: 0, lon: 0, radius: 100, #""notifyOnEntry":false"#)
        h.fix("d", 0, 0.01, 0)
        #expect(Harness.summary(h.fix("d", 1, 0, 0)) == ["entry:arrive:d"])
        #expect(Harness.summary(h.fix("d", 2, 0.01, 0)) == ["exit:leave:d"])
    }

    @Test func requestWithBothNotifyFlagsFalseIsRefused() throws {
        let h = Harness()
        #expect(throws: RequestError.self) {
            try h.circle("x", lat: 0, lon: 0, radius: 100, #""notifyOnEntry":false,"notifyOnExit":false"#)
        }
    }

    @Test func fixOnCircleBoundaryCountsAsInside() throws {
        let h = Harness()
        let center = Coordinate(latitude: 48.0, longitude: 11.0)
        try h.circle("c", lat: center.latitude, lon: center.longitude, radius: 1000)
        h.fix("d", 0, 48.1, 11)
        // 999.999 m is inside, 1000.001 m outside: the test sits within a millimetre of the boundary.
        let justInside = destination(center, bearing: 37, metres: 999.999)
        let justOutside = destination(center, bearing: 37, metres: 1000.001)
        #expect(Harness.summary(h.fix("d", 1, justInside.latitude, justInside.longitude)) == ["entry:c:d"])
        #expect(Harness.summary(h.fix("d", 2, justOutside.latitude, justOutside.longitude)) == ["exit:c:d"])
    }

    @Test func fixOnPolygonEdgeAndVertexCountsAsInside() throws {
        let h = Harness()
        try h.polygon("sq", geometry: #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}"#)
        h.fix("d", 0, 2, 2)
        #expect(Harness.summary(h.fix("d", 1, 0.5, 1)) == ["entry:sq:d"])  // on the top edge
        h.fix("e", 0, 2, 2)
        #expect(Harness.summary(h.fix("e", 1, 1, 1)) == ["entry:sq:e"])  // on a vertex
    }

    @Test func devicesScopeLimitsWhichDevicesATriggerAppliesTo() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""devices":["truck-12"]"#)
        h.fix("truck-12", 0, 1, 1); h.fix("truck-99", 0, 1, 1)
        #expect(Harness.summary(h.fix("truck-12", 1, 0, 0)) == ["entry:c:truck-12"])
        #expect(h.fix("truck-99", 1, 0, 0).isEmpty)
    }

    @Test func maximumAccuracyIgnoresPoorFixesForThatTrigger() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 500, #""maximumAccuracy":50"#)
        h.fix("d", 0, 0.1, 0, accuracy: 10)
        #expect(h.fix("d", 1, 0, 0, accuracy: 200).isEmpty)  // ignored
        #expect(Harness.summary(h.fix("d", 2, 0, 0, accuracy: 20)) == ["entry:c:d"])
        #expect(h.fix("d", 3, 0.1, 0, accuracy: 300).isEmpty)  // a poor fix outside does not exit either
        #expect(Harness.summary(h.fix("d", 4, 0.1, 0, accuracy: 5)) == ["exit:c:d"])
    }
}
