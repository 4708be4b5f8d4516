import JSON
import Testing
@testable import TriggerEngine

@Suite struct RequestLifecycleTests {
    @Test func addingTheSameIdentifierReplacesAndResetsState() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 1, 1)
        h.fix("d", 1, 0, 0)  // entry
        #expect(try h.engine.add(try h.decoder.decodeRequest(JSONParser.parse("""
            {"identifier":"c","trigger":{"region":{"type":"circle","id":"r2","center":{"latitude":0,"longitude":0},"radius":100},"repeats":true}}
            """))) == .replaced)
        #expect(h.engine.pendingCount == 1)
        // State starts afresh: the next fix inside is a first determination (silent), not "still inside".
        #expect(h.fix("d", 2, 0, 0).isEmpty)
        let exit = h.fix("d", 3, 1, 1)
        #expect(Harness.summary(exit) == ["exit:c:d"])
        // A new revision: delivery ids never repeat one of the replaced request.
        #expect(exit.first?.deliveryId == "c/d/2-1795161603")
        // The written JSON too (its id comes from the request's compiled notification, built at the first firing).
        #expect(exit.first?.jsonLine.contains(#""deliveryId":"c/d/2-1795161603""#) == true)
    }

    @Test func removeByIdentifiersAndRemoveAll() throws {
        let h = Harness()
        for id in ["a", "b", "c"] { try h.circle(id, lat: 0, lon: 0, radius: 100) }
        #expect(h.engine.remove(identifiers: ["a", "zzz"]) == ["a"])
        #expect(h.engine.pendingRequests.map(\.identifier) == ["b", "c"])
        #expect(h.engine.request("b")?.trigger.region.id == "b-region")
        h.engine.removeAll()
        #expect(h.engine.pendingCount == 0)
        h.fix("d", 0, 1, 1)
        #expect(h.fix("d", 1, 0, 0).isEmpty)
    }

    @Test func removedRequestStopsFiringAndItsStateIsDropped() throws {
        let h = Harness()
        try h.circle("a", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 1, 1); h.fix("d", 1, 0, 0)
        h.engine.remove(identifiers: ["a"])
        #expect(h.fix("d", 2, 1, 1).isEmpty)
        #expect(h.engine.storedPairCount == 0)
    }

    @Test func unknownPlaceholderIsRefusedWhenAdded() throws {
        let h = Harness()
        #expect {
            try h.add("""
                {"identifier":"x","content":{"title":"Hi {driver}"},
                 "trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":10}}}
                """)
        } throws: { e in
            let r = e as? RequestError
            return r?.path == "content.title" && r?.identifier == "x" && r?.reason.contains("{driver}") == true
        }
    }

    @Test func userInfoPlaceholderMustNameAnExistingKey() throws {
        let h = Harness()
        #expect(throws: RequestError.self) {
            try h.add("""
                {"identifier":"x","content":{"body":"{userInfo.nope}","userInfo":{"yes":1}},
                 "trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":10}}}
                """)
        }
    }

    @Test func selfIntersectingPolygonIsRefusedWithGEOSReason() throws {
        let h = Harness()
        #expect {
            try h.polygon("bow", geometry: #"{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}"#)
        } throws: { e in
            let r = e as? RequestError
            return r?.identifier == "bow" && r?.path == "trigger.region.geometry" && r?.reason.contains("Self-intersection") == true
        }
    }

    @Test(arguments: [
        (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0.5]]]}"#, "not closed"),
        (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#, "at least 4"),
        (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,95],[0,0]]]}"#, "latitude 95"),
        (#"{"type":"Point","coordinates":[0,0]}"#, "not polygonal"),
    ])
    func invalidGeometryIsRefusedWithAReason(geometry: String, reason: String) throws {
        let h = Harness()
        #expect {
            try h.polygon("bad", geometry: geometry)
        } throws: { e in (e as? RequestError)?.reason.contains(reason) == true }
    }

    @Test func unknownFieldsAndBadValuesNameTheirPath() throws {
        let d = RequestDecoder()
        func reason(_ json: String) -> String? {
            do { _ = try d.decodeRequest(try JSONParser.parse(json)); return nil } catch { return "\(error)" }
        }
        #expect(reason(#"{"identifier":"x","trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":-5}}}"#)
            == #"request "x", trigger.region.radius: must be > 0 metres"#)
        #expect(reason(#"{"identifier":"x","trigger":{"notifyOnEnter":true,"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":5}}}"#)?
            .hasPrefix(#"request "x", trigger.notifyOnEnter: unknown field"#) == true)
        #expect(reason(#"{"trigger":{}}"#) == "request, identifier: required: a non-empty string")
    }
}
