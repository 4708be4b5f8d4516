import Testing
@testable import TriggerEngine

@Suite struct DwellTests {
    @Test func entryNotifiesWhenTheDwellTimeHasPassed() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("d", 0, 0.01, 0)
        #expect(h.fix("d", 10, 0, 0).isEmpty)
        #expect(h.fix("d", 40, 0, 0).isEmpty)
        let fired = h.fix("d", 100, 0, 0)
        #expect(Harness.summary(fired) == ["entry:c:d"])
        // Fired at the deadline (10 s + 60 s), carrying the fix that started the dwell.
        #expect(fired.first?.firedAt == Harness.time(70))
        #expect(fired.first?.fix?.timestamp == Harness.time(10))
    }

    @Test func clockAdvanceFiresTheDwellWithoutAnotherFix() throws {
        let h = Harness(.init(clock: .external))
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("d", 0, 0.01, 0)
        h.fix("d", 10, 0, 0)
        #expect(h.advance(69).isEmpty)
        #expect(Harness.summary(h.advance(70)) == ["entry:c:d"])
    }

    @Test func leavingBeforeTheDwellCancelsSilently() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("d", 0, 0.01, 0)
        h.fix("d", 10, 0, 0)
        #expect(h.fix("d", 30, 0.01, 0).isEmpty)  // no entry, and no exit for an entry never reported
        #expect(h.advance(1000).isEmpty)
        #expect(h.engine.statistics.dwellsCancelled == 1)
    }

    @Test func anotherDeviceClockDoesNotCancelADwell() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("a", 0, 0.01, 0)
        h.fix("a", 10, 0, 0)
        // Another device's fix moves the event-time clock past a's deadline: a's entry fires then.
        let fired = h.fix("b", 200, 5, 5)
        #expect(Harness.summary(fired) == ["entry:c:a"])
        #expect(fired.first?.firedAt == Harness.time(70))
    }
}
