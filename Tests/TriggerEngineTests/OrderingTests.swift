import Testing
@testable import TriggerEngine

@Suite struct OrderingTests {
    @Test func lateFixIsDroppedAndCounted() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 10, 1, 1)
        var outcome: TriggerEngine.Outcome?
        outcome = h.engine.process(LocationFix(device: "d", timestamp: Harness.time(5), latitude: 0, longitude: 0)) { _ in }
        #expect(outcome == .rejected(.late))
        #expect(h.engine.statistics.rejected[.late] == 1)
        // Other devices have their own order.
        #expect(h.engine.process(LocationFix(device: "e", timestamp: Harness.time(5), latitude: 1, longitude: 1)) { _ in } == .evaluated)
    }

    @Test func equalTimestampsAreProcessedInArrivalOrderAndExactDuplicatesIgnored() throws {
        let h = Harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 1, 1)
        #expect(Harness.summary(h.fix("d", 5, 0, 0)) == ["entry:c:d"])
        #expect(Harness.summary(h.fix("d", 5, 1, 1)) == ["exit:c:d"])  // same time, different place: processed
        let dup = h.engine.process(LocationFix(device: "d", timestamp: Harness.time(5), latitude: 1, longitude: 1)) { _ in }
        #expect(dup == .rejected(.duplicate))
    }

    @Test(arguments: [
        (91.0, 0.0, FixRejection.latitudeOutOfRange), (0, -180.5, .longitudeOutOfRange), (.nan, 0, .notANumber),
    ])
    func invalidFixIsRejectedWithItsReason(lat: Double, lon: Double, reason: FixRejection) {
        let h = Harness()
        let o = h.engine.process(LocationFix(device: "d", timestamp: Harness.time(0), latitude: lat, longitude: lon)) { _ in }
        #expect(o == .rejected(reason))
        #expect(h.engine.statistics.rejected[reason] == 1)
    }

    @Test func negativeAccuracyAndEmptyDeviceAreRejected() {
        let h = Harness()
        #expect(h.engine.process(LocationFix(device: "d", timestamp: Harness.time(0), latitude: 0, longitude: 0,
                                             horizontalAccuracy: -1)) { _ in } == .rejected(.negativeAccuracy))
        #expect(h.engine.process(LocationFix(device: "", timestamp: Harness.time(0), latitude: 0, longitude: 0)) { _ in }
            == .rejected(.missingDevice))
    }

    @Test func idleDevicesExpireAndStartAfresh() throws {
        let h = Harness(.init(idleDeviceExpiry: 600))
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 0, 0)
        h.fix("other", 2000, 5, 5)
        // Event time expires by the watermark, the second-newest device time: one device alone moves nothing.
        #expect(h.engine.deviceCount == 2)
        h.fix("third", 2000, 5, 5)
        #expect(h.engine.status(ofDevice: "d") == nil)
        #expect(h.engine.statistics.devicesExpired == 1)
        #expect(h.engine.deviceCount == 2)
    }
}
