import Testing
@testable import TriggerEngine

/// SPEC §3: a fix further ahead of the clock than a configured bound is rejected as `future` and moves no clock.
@Suite struct FutureTimestampTests {
    let year9999 = Timestamp(rfc3339: "9999-12-31T23:59:59Z")!

    @Test func farFutureFixIsRejectedAndWedgesNothing() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 1, 1)
        let outcome = h.engine.process(LocationFix(device: "d", timestamp: year9999, latitude: 0, longitude: 0)) { _ in }
        #expect(outcome == .rejected(.future))
        #expect(h.engine.now == Harness.time(0))  // the watermark did not move
        // The device's next real fix is not late.
        #expect(Harness.summary(h.fix("d", 10, 0, 0)) == ["entry:c:d"])
        #expect(h.engine.statistics.rejected == [.future: 1])
    }

    @Test func eventTimeBoundIsRelativeToTheWatermark() throws {
        var c = TriggerEngine.Configuration(clock: .eventTime)
        c.maximumFuture = 3600
        let h = Harness(c)
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("a", 0, 1, 1)
        #expect(h.engine.process(LocationFix(device: "b", timestamp: Harness.time(3601), latitude: 1, longitude: 1)) { _ in } == .rejected(.future))
        #expect(h.engine.process(LocationFix(device: "b", timestamp: Harness.time(3600), latitude: 1, longitude: 1)) { _ in } == .evaluated)
    }

    @Test func wallClockBoundIsTenMinutesByDefault() throws {
        let h = Harness(.init(clock: .external))
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.advance(1000)
        let sighting = BeaconSighting(device: "gw", timestamp: Harness.time(1601), identity: nil, rssi: nil, txPower: nil)
        #expect(h.engine.process(sighting) { _ in } == .rejected(.future))
        #expect(h.engine.process(LocationFix(device: "d", timestamp: Harness.time(1601), latitude: 1, longitude: 1)) { _ in } == .rejected(.future))
        #expect(h.engine.process(LocationFix(device: "d", timestamp: Harness.time(1600), latitude: 1, longitude: 1)) { _ in } == .evaluated)
        #expect(h.engine.now == Harness.time(1000))
    }
}
