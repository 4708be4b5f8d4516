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

    @Test func clockFiresTheDwellOfASilentDeviceAfterTheAllowedLateness() throws {
        let h = Harness(.init(clock: .external))  // wall clock: 60 s allowed lateness by default
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("d", 0, 0.01, 0)
        h.fix("d", 10, 0, 0)
        #expect(h.advance(70).isEmpty)   // due, but d may still have something to say
        #expect(h.advance(129).isEmpty)
        let fired = h.advance(130)
        #expect(Harness.summary(fired) == ["entry:c:d"])
        #expect(fired.first?.firedAt == Harness.time(70))  // at its own deadline, not when the clock fired it
    }

    @Test func clockWaitsWhileTheDeviceIsStillSending() throws {
        let h = Harness(Harness.configuration(.external, lateness: 60))
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":30"#)
        h.advance(1000)
        h.fix("d", 0, 0.01, 0)
        h.fix("d", 10, 0, 0)  // entering; deadline 40, long past on the wall clock
        #expect(h.advance(1001).isEmpty)  // d's fixes arrived at 1000: not silent yet
        // d's buffered upload goes on and says it left before the deadline: no entry, nothing late.
        #expect(h.fix("d", 20, 0.01, 0).isEmpty)
        #expect(h.advance(1200).isEmpty)
        #expect(h.engine.statistics.dwellsCancelled == 1)
        #expect(h.engine.statistics.rejected[.late, default: 0] == 0)
    }

    @Test func afterTheClockFiredAnOlderFixIsLate() throws {
        let h = Harness(Harness.configuration(.external, lateness: 0))
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":30"#)
        h.fix("d", 0, 0.01, 0)
        h.fix("d", 10, 0, 0)
        #expect(Harness.summary(h.advance(45)) == ["entry:c:d"])
        // The device's timeline moved to the deadline: a fix from before it can no longer change the past.
        var outcome: TriggerEngine.Outcome?
        outcome = h.engine.process(LocationFix(device: "d", timestamp: Harness.time(35), latitude: 0.01, longitude: 0)) { _ in }
        #expect(outcome == .rejected(.late))
        #expect(h.fix("d", 41, 0.01, 0).map(\.event) == [.exit])
    }

    @Test func ownLaterFixSettlesTheDwellWhateverTheBatch() throws {
        // Four fixes inside over 60 s, posted together long after: the dwell completes from the fixes themselves.
        let h = Harness(.init(clock: .external))
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":30"#)
        h.fix("d", 0, 0.01, 0)
        h.advance(200)
        var fired: [FiredNotification] = []
        for t in [100.0, 120, 140, 160] { fired += h.fix("d", t, 0, 0) }
        #expect(Harness.summary(fired) == ["entry:c:d"])
        #expect(fired.first?.firedAt == Harness.time(130))
        #expect(fired.first?.fix?.timestamp == Harness.time(100))
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

    @Test func anotherDevicesFixNeverDecidesADwell() throws {
        let h = Harness()  // event time, replay: no allowed lateness, the end of input decides for silent devices
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("a", 0, 0.01, 0)
        h.fix("a", 10, 0, 0)
        // Another device's fix moves the watermark far past a's deadline: a's own timeline still decides.
        #expect(h.fix("b", 200, 5, 5).isEmpty)
        // a's fixes arrive later (a file grouped by device): it left before its deadline, so nothing fires.
        #expect(h.fix("a", 50, 0.01, 0).isEmpty)
        #expect(h.finish().isEmpty)
        #expect(h.engine.statistics.dwellsCancelled == 1)
    }

    @Test func endOfInputFiresWhatSilentDevicesLeftPending() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("a", 0, 0.01, 0)
        h.fix("a", 10, 0, 0)    // deadline 70
        h.fix("b", 0, 0.01, 0)
        h.fix("b", 100, 0, 0)   // deadline 160, beyond the newest timestamp seen
        let fired = h.finish()
        #expect(Harness.summary(fired) == ["entry:c:a"])
        #expect(fired.first?.firedAt == Harness.time(70))
    }

    @Test func eventTimeLatenessFiresSilentDevicesOnTheWatermark() throws {
        let h = Harness(Harness.configuration(.eventTime, lateness: 30))
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("a", 0, 0.01, 0)
        h.fix("a", 10, 0, 0)                 // deadline 70
        // The watermark is the second-newest device time: b and c must both be past 100.
        #expect(h.fix("b", 99, 5, 5).isEmpty)
        #expect(h.fix("c", 99, 5, 5).isEmpty)  // 99 - 30 < 70
        #expect(h.fix("b", 100, 5, 5).isEmpty)  // b alone at 100: the watermark stays at c's 99
        let fired = h.fix("c", 100, 5, 5)
        #expect(Harness.summary(fired) == ["entry:c:a"])
        #expect(fired.first?.firedAt == Harness.time(70))
    }
}
