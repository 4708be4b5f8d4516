import Testing
@testable import TriggerEngine

/// Issue 43, case 7: a device silent for the retention (`idleDeviceExpiry`, `serve --device-retention`) is
/// forgotten; its geofence memberships end silently or, with `expiryExits`, with an exit (docs/service.md "Device
/// retention"). The checkpoint shrinks by it.
@Suite struct DeviceRetentionTests {
    static func engine(exits: Bool) throws -> Harness {
        var c = TriggerEngine.Configuration(clock: .external, idleDeviceExpiry: 3600)
        c.expiryExits = exits
        c.keepsLastPosition = true
        let h = Harness(c)
        try h.circle("depot", lat: 0, lon: 0, radius: 100, #""notifyOnExit":true"#)
        return h
    }

    static func checkpointBytes(_ h: Harness) -> Int {
        var w = ByteWriter(capacity: 1024)
        h.engine.encodeCheckpoint(into: &w)
        return w.bytes.count
    }

    @Test func aForgottenDeviceLeavesItsGeofencesSilentlyByDefault() throws {
        let h = try Self.engine(exits: false)
        h.advance(0)
        h.fix("truck", 0, 5, 5)
        h.fix("truck", 1, 0.0001, 0)
        for k in 0..<100 { h.fix("other-\(k)", 1, 5, 5) }
        #expect(Harness.summary(h.out) == ["entry:depot:truck"])
        let before = Self.checkpointBytes(h)
        h.advance(3000)
        #expect(h.engine.deviceCount == 101)
        h.advance(4000)
        #expect(h.engine.deviceCount == 0)
        #expect(h.engine.status(ofDevice: "truck") == nil)
        #expect(Self.checkpointBytes(h) < before / 10)
        // No exit, and none later either: it comes back as a new device, outside.
        h.fix("truck", 4100, 5, 5)
        #expect(Harness.summary(h.out) == ["entry:depot:truck"])
    }

    @Test func withExitsAForgottenDeviceExitsAtTheRetentionMoment() throws {
        let h = try Self.engine(exits: true)
        h.advance(0)
        h.fix("truck", 10, 5, 5)
        h.fix("truck", 11, 0.0001, 0)
        h.fix("idle", 10, 5, 5)
        h.advance(3000)
        #expect(Harness.summary(h.out) == ["entry:depot:truck"])
        let fired = h.advance(4000)
        #expect(Harness.summary(fired) == ["exit:depot:truck"])
        #expect(fired.first?.firedAt == Harness.time(3611))
        #expect(h.engine.deviceCount == 0)
    }

    /// A device with a dwell running is kept until the clock has settled it, then forgotten like any other.
    @Test func aPendingDwellKeepsTheDeviceUntilTheClockSettlesIt() throws {
        var c = TriggerEngine.Configuration(clock: .external, idleDeviceExpiry: 60)
        c.allowedLateness = 10
        let h = Harness(c)
        try h.circle("slow", lat: 0, lon: 0, radius: 100, #""dwell":600"#)
        h.advance(0)
        h.fix("d", 0, 5, 5)
        h.fix("d", 1, 0, 0)
        h.advance(500)
        #expect(h.engine.status(ofDevice: "d")?.memberships.first?.phase == "entering")
        h.advance(700)
        #expect(Harness.summary(h.out) == ["entry:slow:d"])
        #expect(h.engine.status(ofDevice: "d") == nil)
    }

    /// Once most records are forgotten the rest move to arrays sized for them: their state, pending deadlines and
    /// region occupancy go along.
    @Test func compactionKeepsTheDevicesLeftWithTheirDeadlines() throws {
        var c = TriggerEngine.Configuration(clock: .external, idleDeviceExpiry: 60)
        c.allowedLateness = 10
        c.tracksOccupants = true
        let h = Harness(c)
        try h.circle("slow", lat: 0, lon: 0, radius: 100, #""dwell":600"#)
        try h.circle("quick", lat: 1, lon: 1, radius: 100)
        h.advance(0)
        for k in 0..<5000 { h.fix("idle-\(k)", 0, 5, 5) }
        h.fix("waiting", 0, 5, 5)
        h.fix("waiting", 1, 0, 0)  // dwell deadline 601
        h.fix("present", 0, 5, 5)
        h.fix("present", 1, 1, 1)  // inside quick
        h.fix("present", 290, 1, 1)
        h.advance(300)  // forgets the 5000 silent ones; waiting's dwell keeps it
        #expect(h.engine.statistics.deviceCompactions == 1)
        #expect(h.engine.deviceCount == 2)
        #expect(h.engine.status(ofDevice: "present")?.memberships.map(\.identifier) == ["quick"])
        #expect(h.engine.occupants(ofRegion: "quick-region")?.map(\.device) == ["present"])
        let fired = h.advance(700)
        #expect(Harness.summary(fired) == ["entry:slow:waiting"])
        #expect(fired.first?.firedAt == Harness.time(601))
        #expect(h.engine.deviceCount == 0)  // its dwell settled, waiting goes too, as does present
        h.fix("idle-7", 710, 5, 5)
        #expect(h.engine.deviceCount == 1)
    }
}
