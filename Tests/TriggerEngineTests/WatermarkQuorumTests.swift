import Testing
@testable import TriggerEngine

/// Issue 43, case 5: under event time one device cannot drag the clock. The watermark that fires silent devices'
/// deadlines is the second-newest device time, and `future` is measured from it and from the device's own time
/// (docs/semantics.md "Time").
@Suite struct WatermarkQuorumTests {
    static func engine(lateness: Double? = 60, future: Double? = nil) throws -> Harness {
        var c = Harness.configuration(.eventTime, lateness: lateness)
        c.maximumFuture = future
        let h = Harness(c)
        try h.circle("dwell", lat: 0, lon: 0, radius: 100, #""dwell":60,"notifyOnExit":true"#)
        return h
    }

    /// The issue's attack: one fix 300 days ahead fired every pending dwell, including a device that had left.
    @Test func oneDeviceFarAheadFiresNoOtherDevicesDwell() throws {
        let h = try Self.engine(future: nil)
        h.fix("a", -10, 1, 1)
        h.fix("a", 0, 0, 0)  // entering, dwell deadline 60
        h.fix("b", 0, 1, 1)
        #expect(h.fix("attacker", 300 * 86_400, 1, 1).isEmpty)
        #expect(h.engine.silentDeadlineLimit.map { $0 < Harness.time(0) } == true)
        // a left before its dwell time: nothing fires, and its fix is not late.
        h.fix("a", 30, 1, 1)
        let outcome = h.engine.process(LocationFix(device: "a", timestamp: Harness.time(31), latitude: 1, longitude: 1)) { h.out.append($0) }
        #expect(outcome == .evaluated)
        #expect(h.out.isEmpty)
    }

    /// The bundled demo's case: a device's whole stream, then another's (a file grouped by device). The second's
    /// dwell, cancelled by its own next fix, must not be fired by a watermark the first set alone.
    @Test func aDeviceAfterAnothersWholeStreamGetsTheNotificationsOfTheSortedRun() throws {
        func run(_ order: [(String, Double, Bool)], lateness: Double?) throws -> [String] {
            let h = try Self.engine(lateness: lateness)
            for (device, t, inside) in order { h.fix(device, t, inside ? 0 : 1, inside ? 0 : 1) }
            h.finish()
            return h.out.map(\.deliveryId).sorted()
        }
        let first = (0..<40).map { ("truck-12", Double($0) * 30, false) }
        let second = [("truck-13", 100.0, false), ("truck-13", 130, true), ("truck-13", 170, false), ("truck-13", 400, true),
                      ("truck-13", 500, true)]
        let sorted = (first + second).sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        let reference = try run(sorted, lateness: nil)
        // The dwell from 400 (fired at 460), not the one cancelled at 170.
        #expect(reference == ["dwell/truck-13/1-\(Harness.time(460).microseconds / 1_000_000)"])
        #expect(try run(first + second, lateness: 60) == reference)
        #expect(try run(second + first, lateness: 60) == reference)
        #expect(try run(sorted, lateness: 60) == reference)
    }

    /// The watermark needs a second device: one device alone fires nothing of its own by the clock, it settles its
    /// deadlines with its own input; with two, the older one's time is the watermark.
    @Test func theWatermarkIsTheSecondNewestDeviceTime() throws {
        let h = try Self.engine(lateness: 0)
        h.fix("a", 0, 0, 0)
        h.fix("a", 1000, 5, 5)
        #expect(h.engine.silentDeadlineLimit.map { $0 < Harness.time(0) } == true)
        h.fix("b", 10, 5, 5)
        #expect(h.engine.silentDeadlineLimit == Harness.time(10))
        h.fix("b", 500, 5, 5)
        #expect(h.engine.silentDeadlineLimit == Harness.time(500))
        h.fix("c", 2000, 5, 5)
        #expect(h.engine.silentDeadlineLimit == Harness.time(1000))
    }

    /// `future` in minutes: measured from the watermark and from the device's own newest time, so a device keeps its
    /// own pace but a fresh name cannot jump ahead of everyone.
    @Test func aFixTooFarAheadOfTheWatermarkAndOfItsDeviceIsFuture() throws {
        let h = try Self.engine(future: 600)
        func fix(_ device: String, _ t: Double) -> TriggerEngine.Outcome {
            h.engine.process(LocationFix(device: device, timestamp: Harness.time(t), latitude: 5, longitude: 5)) { _ in }
        }
        #expect(fix("a", 0) == .evaluated)
        #expect(fix("b", 0) == .evaluated)
        #expect(fix("a", 600) == .evaluated)
        #expect(fix("a", 1200) == .evaluated)  // 600 past its own time, though 1200 past the watermark
        #expect(fix("fresh", 700) == .rejected(.future))
        #expect(fix("b", 601) == .rejected(.future))
        #expect(fix("b", 600) == .evaluated)
        #expect(fix("fresh", 1200) == .evaluated)
        #expect(h.engine.statistics.rejected == [.future: 2])
    }

    /// Forgetting devices works the watermark out again from those left, the same as an engine that never had them.
    @Test func idleExpiryByTheWatermarkNotByTheDeviceAhead() throws {
        var c = Harness.configuration(.eventTime, lateness: 60)
        c.idleDeviceExpiry = 3600
        c.maximumFuture = nil
        let h = Harness(c)
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("a", 0, 5, 5)
        h.fix("b", 0, 5, 5)
        h.fix("ahead", 10 * 86_400, 5, 5)
        h.fix("ahead", 10 * 86_400 + 10, 5, 5)
        #expect(h.engine.deviceCount == 3)
        // Two devices move on: the watermark passes a's and b's hour, and only a silent one goes.
        h.fix("b", 7200, 5, 5)
        h.fix("ahead", 10 * 86_400 + 20, 5, 5)
        h.fix("b", 7300, 5, 5)
        #expect(h.engine.status(ofDevice: "a") == nil)
        #expect(h.engine.status(ofDevice: "b") != nil)
        #expect(h.engine.status(ofDevice: "ahead") != nil)
        #expect(h.engine.silentDeadlineLimit == Harness.time(7300 - 60))
    }
}
