import JSON
import Testing
import TestSupport
@testable import TriggerEngine

/// One case per reason the engine can give for a decision (docs/why.md), read back through `explain`.
@Suite struct ExplainTests {
    static func harness(depth: Int = 64) -> Harness {
        var c = TriggerEngine.Configuration()
        c.explainDepth = depth
        return Harness(c)
    }

    /// The last input's decision for `request`.
    static func last(_ h: Harness, _ device: String, _ request: String) throws -> Decision {
        let e = try #require(h.engine.explain(device: device, request: request))
        let input = try #require(e.inputs.last)
        return try #require(input.decisions.first { $0.request == request })
    }

    @Test func insideOutsideAndEnteredWithTheDistanceToTheEdge() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 0.01, 0)  // ~1.1 km north: outside
        var x = try Self.last(h, "d", "c")
        #expect(x.standing == .outside)
        #expect(x.outcome == .unchanged)
        #expect(abs(x.distanceToEdge! - (100 - 1105.7)) < 2)
        #expect(x.reason.hasPrefix("outside: 1.0 km outside the edge"))
        h.fix("d", 1, 0.0001, 0)  // ~11 m from the centre
        x = try Self.last(h, "d", "c")
        #expect(x.standing == .inside)
        #expect(x.outcome == .entered)
        #expect(x.fired)
        #expect(abs(x.distanceToEdge! - 88.9) < 0.5)
        #expect(x.reason.contains("entered; notified"))
        h.fix("d", 2, 0.0002, 0)
        x = try Self.last(h, "d", "c")
        #expect(x.outcome == .unchanged && !x.fired)
        #expect(x.reason.contains("already inside"))
    }

    /// Found by schemathesis: an accuracy beyond Float32's range was kept as infinity and written as JSON null.
    @Test func anEnormousAccuracyIsReportedAsANumber() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        _ = h.fix("d", 0, 0.01, 0, accuracy: 1e300)
        let e = try #require(h.engine.explain(device: "d", request: nil))
        let accuracy = try #require(e.inputs.last?.horizontalAccuracy)
        #expect(accuracy.isFinite && accuracy > 1e38)
        var w = JSONWriter()
        e.write(into: &w)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(!text.contains("null"), "\(text)")
    }

    @Test func aCoarseFixIsUncertainAndTheStateHolds() throws {
        let h = Self.harness()
        try h.circle("depot", lat: 0, lon: 0, radius: 200, #""hysteresis":10"#)
        h.fix("d", 0, 0.05, 0)
        h.fix("d", 1, 0, 0, accuracy: 500)  // at the centre, but ±500 m
        let x = try Self.last(h, "d", "depot")
        #expect(x.standing == .uncertain)
        #expect(x.band == 510)
        #expect(x.outcome == .unchanged && !x.fired)
        #expect(x.reason.contains("within the uncertainty band of 510 m (accuracy 500 m + hysteresis 10 m): the previous state holds"))
        #expect(h.out.isEmpty)
    }

    @Test func accuracyAboveTheRequestsMaximumIsIgnored() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""maximumAccuracy":50"#)
        h.fix("d", 0, 0, 0, accuracy: 80)
        let x = try Self.last(h, "d", "c")
        #expect(x.standing == .accuracyTooLow)
        #expect(x.reason == "ignored: accuracy 80 m is worse than the request's maximumAccuracy 50 m")
    }

    @Test func aRequestForOtherDevicesIsOutOfScope() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""devices":["other"]"#)
        h.fix("d", 0, 0, 0)
        let x = try Self.last(h, "d", "c")
        #expect(x.standing == .outOfScope)
        #expect(x.reason == "ignored: the request applies only to other devices")
        #expect(h.out.isEmpty)
    }

    @Test func dwellPendingUntilThenCompletedOrCancelled() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""dwell":60"#)
        h.fix("d", 0, 1, 1)
        h.fix("d", 10, 0, 0)
        var x = try Self.last(h, "d", "c")
        #expect(x.outcome == .dwellStarted && !x.fired)
        #expect(x.dwellUntil == Harness.time(70))
        #expect(x.reason.contains("the entry notifies at \(Harness.time(70)) if the device stays (dwell 60 s)"))
        let standing = try #require(h.engine.explain(device: "d")?.standing.first)
        #expect(standing.phase == "entering" && standing.dwellUntil == Harness.time(70))
        h.fix("d", 80, 0, 0)  // the device's own later fix settles the dwell first
        let e = try #require(h.engine.explain(device: "d", request: "c"))
        let completed = e.inputs.last!.decisions
        #expect(completed.map(\.outcome).contains(.dwellCompleted))
        #expect(completed.contains { $0.fired })
        // A second dwell, cancelled.
        h.fix("d", 90, 1, 1)
        h.fix("d", 100, 0, 0)
        h.fix("d", 110, 1, 1)
        x = try Self.last(h, "d", "c")
        #expect(x.outcome == .dwellCancelled && !x.fired)
        #expect(x.reason.contains("left before the dwell time"))
    }

    @Test func minimumIntervalHoldsANotificationBackUntil() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100, #""minimumInterval":300"#)
        h.fix("d", 0, 1, 1)
        h.fix("d", 10, 0, 0)
        h.fix("d", 20, 1, 1)
        let x = try Self.last(h, "d", "c")
        #expect(x.outcome == .exited && !x.fired)
        #expect(x.suppressedUntil == Harness.time(310))
        #expect(x.reason.contains("held back by minimumInterval 300 s until \(Harness.time(310))"))
        let standing = try #require(h.engine.explain(device: "d", request: "c")?.standing.first)
        #expect(standing.quietUntil == Harness.time(310))
    }

    @Test func aOneShotRequestThatFiredIsDelivered() throws {
        let h = Self.harness()
        try h.add("""
            {"identifier":"once","content":{"title":"hi"},
             "trigger":{"region":{"type":"circle","id":"r","center":{"latitude":0,"longitude":0},"radius":100},"repeats":false}}
            """)
        h.fix("a", 0, 1, 1)
        h.fix("a", 1, 0, 0)
        let x = try Self.last(h, "a", "once")
        #expect(x.fired && x.delivered)
        #expect(x.standing == .inside)
        #expect(x.reason.contains("a repeats: false request: it fired once and left the pending set"))
        h.fix("b", 2, 0, 0)
        let e = try #require(h.engine.explain(device: "b", request: "once"))
        #expect(e.delivered?.device == "a")
        #expect(e.lines.last == "b: request once fired once (repeats: false) at \(Harness.time(1)) for a and left the pending set")
    }

    @Test func theInitialStateNotifiesOnlyWithInitialTrigger() throws {
        let h = Self.harness()
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 0, 0, 0)
        let x = try Self.last(h, "d", "c")
        #expect(x.outcome == .initiallyInside && !x.fired)
        #expect(x.reason.contains("notifies only with initialTrigger"))
    }

    @Test func refusalsCarryTheirReason() throws {
        var c = TriggerEngine.Configuration()
        c.explainDepth = 64
        c.maximumFuture = 3600
        let h = Harness(c)
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        h.fix("d", 100, 1, 1)
        h.fix("d", 50, 1, 1)  // late
        h.fix("d", 100, 1, 1)  // duplicate
        h.fix("d", 100_000, 1, 1)  // future
        h.fix("d", 101, 91, 1)  // invalid latitude
        let refused = try #require(h.engine.explain(device: "d")).inputs.compactMap(\.refused)
        #expect(refused == [.late, .duplicate, .future, .latitudeOutOfRange])
        let lines = try #require(h.engine.explain(device: "d")).lines
        #expect(lines[1].hasSuffix("refused (late): older than the newest fix already processed for this device"))
    }

    @Test func aPolygonsDistanceToItsEdge() throws {
        let h = Self.harness()
        try h.polygon("p", geometry: #"{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]]}"#)
        h.fix("d", 0, 0.005, 0.005)
        let x = try Self.last(h, "d", "p")
        #expect(x.standing == .inside)
        #expect(abs(x.distanceToEdge! - 552.8) < 3)
        h.fix("d", 1, 0.005, 0.02)
        let y = try Self.last(h, "d", "p")
        #expect(y.standing == .outside)
        #expect(abs(y.distanceToEdge! + 1113) < 5)
    }

    @Test func theHistoryKeepsTheNewestEntriesAndCountsTheRest() throws {
        let h = Self.harness(depth: 4)
        try h.circle("c", lat: 0, lon: 0, radius: 100)
        for t in 0..<10 { h.fix("d", Double(t), 1, 1) }
        let e = try #require(h.engine.explain(device: "d"))
        #expect(e.inputs.count == 4)
        #expect(e.omitted == 6)
        #expect(e.inputs.map(\.time) == (6..<10).map { Harness.time(Double($0)) })
        let off = Harness()
        off.fix("d", 0, 1, 1)
        #expect(off.engine.explain(device: "d")?.recorded == false)
        #expect(off.engine.explain(device: "nobody") == nil)
    }

    /// Over a random walk through overlapping circles with every rule switched on, the decisions that say
    /// "fired" are exactly the notifications each fix emitted, request by request.
    @Test func firedDecisionsAreExactlyTheEmittedNotifications() throws {
        // Replay's mode: one device, every entry, drained after each fix.
        var configuration = TriggerEngine.Configuration()
        configuration.explainDevice = "d"
        let h = Harness(configuration)
        try h.circle("a", lat: 0, lon: 0, radius: 300, #""minimumInterval":20"#)
        try h.circle("b", lat: 0.002, lon: 0, radius: 250, #""dwell":15,"hysteresis":20"#)
        try h.circle("c", lat: 0.001, lon: 0.002, radius: 400, #""notifyOnExit":false,"initialTrigger":true"#)
        var rng = SplitMix(seed: 47)
        var lat = 0.0, lon = 0.0
        for t in 0..<2000 {
            lat = max(-0.006, min(0.006, lat + Double(rng.next() % 2001) / 1e6 - 0.001))
            lon = max(-0.006, min(0.006, lon + Double(rng.next() % 2001) / 1e6 - 0.001))
            let accuracy = Double(rng.next() % 60)
            let emitted = h.fix("d", Double(t * 5), lat, lon, accuracy: accuracy)
            let drained = try #require(h.engine.drainExplanation())
            #expect(drained.inputs.count == 1)
            let input = try #require(drained.inputs.first)
            let fired = Set(input.decisions.filter(\.fired).map(\.request))
            #expect(fired == Set(emitted.map(\.identifier)), "at step \(t)")
        }
        #expect(h.out.count > 50)
    }
}
