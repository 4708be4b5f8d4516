import Testing
@testable import TriggerEngine

@Suite struct RepeatsAndIntervalTests {
    @Test func nonRepeatingRequestFiresOnceAcrossDevicesAndIsDelivered() throws {
        let h = Harness()
        try h.add("""
            {"identifier":"once","content":{"title":"hi"},
             "trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":100},"repeats":false}}
            """)
        h.fix("a", 0, 1, 1); h.fix("b", 0, 1, 1)
        #expect(Harness.summary(h.fix("a", 1, 0, 0)) == ["entry:once:a"])
        #expect(h.fix("b", 2, 0, 0).isEmpty)
        #expect(h.fix("a", 3, 1, 1).isEmpty)
        #expect(h.engine.pendingRequests.isEmpty)
        #expect(h.engine.delivered.map { $0.request.identifier } == ["once"])
        #expect(h.engine.delivered.first?.device == "a")
    }

    @Test func minimumIntervalSuppressesARepeatForThatDevice() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""minimumInterval":300"#)
        h.fix("d", 0, 1, 1)
        #expect(Harness.summary(h.fix("d", 10, 0, 0)) == ["entry:c:d"])
        #expect(h.fix("d", 20, 1, 1).isEmpty)  // exit within 300 s of the entry: suppressed
        #expect(h.fix("d", 30, 0, 0).isEmpty)  // re-entry: suppressed
        #expect(h.engine.statistics.suppressedByMinimumInterval == 2)
        h.fix("d", 400, 1, 1)  // 390 s after the last notification: the exit notifies again
        #expect(Harness.summary(Array(h.out.suffix(1))) == ["exit:c:d"])
        // Other devices are not affected by d's interval.
        h.fix("e", 0, 1, 1)
        #expect(Harness.summary(h.fix("e", 401, 0, 0)) == ["entry:c:e"])
    }

    @Test func deliveryIdsAreStableAndUnique() throws {
        func run() throws -> [String] {
            let h = Harness()
            try h.circle("c", lat: 0, lon: 0, radius: 100)
            h.fix("d", 0, 1, 1); h.fix("d", 1, 0, 0); h.fix("d", 2, 1, 1); h.fix("d", 3, 0, 0)
            return h.out.map(\.deliveryId)
        }
        let first = try run()
        // identifier/device/revision-TIME: the firing's own time (Unix seconds), never a count across devices.
        #expect(first == ["c/d/1-1795161601", "c/d/1-1795161602", "c/d/1-1795161603"])
        #expect(try run() == first)
    }

    @Test func deliveryIdsCarryFractionsAndAnOrdinalForTheSameInstant() throws {
        let h = Harness()
        try h.circle("a", lat: 0, lon: 0, radius: 100)
        try h.circle("b", lat: 0, lon: 0, radius: 200)
        h.fix("d", 0, 1, 1)
        // Both requests fire for d at the same instant: the second is d's 2nd notification at that time.
        let fired = h.fix("d", 1.25, 0, 0)
        // One fix fires requests in the order they were added (slot order); the ordinal follows it.
        #expect(fired.map(\.deliveryId) == ["a/d/1-1795161601.25", "b/d/2-1795161601.25-2"])
        #expect(Set(h.out.map(\.deliveryId)).count == h.out.count)
    }
}
