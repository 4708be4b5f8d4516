import Testing
@testable import TriggerEngine

@Suite struct BeaconRegionTests {
    let uuid = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"

    func sighting(_ device: String, _ t: Double, major: UInt16 = 1, minor: UInt16 = 2, proximity: Proximity = .near)
        -> BeaconSighting
    {
        BeaconSighting(device: device, timestamp: Harness.time(t),
                       identity: .iBeacon(uuid: UUID128(string: uuid)!, major: major, minor: minor), rssi: -60, txPower: -59,
                       address: "C0:FF:EE:00:00:01", proximity: proximity, distance: 1.2)
    }

    func add(_ h: Harness, _ extra: String = "", major: String = "") throws {
        try h.add("""
            {"identifier":"door","content":{"title":"{event} at {region.name} ({beacon.proximity})"},
             "trigger":{"region":{"type":"beacon","id":"door","name":"Front door","uuid":"\(uuid)"\(major)},"repeats":true\(extra)}}
            """)
    }

    @discardableResult
    func send(_ h: Harness, _ s: BeaconSighting) -> [String] {
        var out: [FiredNotification] = []
        h.engine.process(s) { out.append($0) }
        h.out += out
        return Harness.summary(out)
    }

    @Test func entryAfterListeningAndExitAfterTheTimeout() throws {
        let h = Harness()
        try add(h)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 40)) == ["entry:door:gw"])
        #expect(send(h, sighting("gw", 50)).isEmpty)
        // The observer's own listening ticks decide its exit (per-device time), not another device's clock.
        #expect(h.listen("gw", 79).isEmpty)
        #expect(Harness.summary(h.listen("gw", 81)) == ["exit:door:gw"])
        #expect(h.out.last?.firedAt == Harness.time(80))
        #expect(h.out.first?.content.title == "entry at Front door (near)")
        #expect(h.out.first?.beacon?.rssi == -60)
    }

    @Test func firstSightingOfAFreshObserverIsSilentUnlessInitialTrigger() throws {
        let h = Harness()
        try add(h)
        #expect(send(h, sighting("gw", 0)).isEmpty)
        let h2 = Harness()
        try add(h2, #","initialTrigger":true"#)
        #expect(send(h2, sighting("gw", 0)) == ["entry:door:gw"])
    }

    @Test func requiredProximityFiltersFarSightings() throws {
        let h = Harness()
        try h.add("""
            {"identifier":"desk","trigger":{"region":{"type":"beacon","id":"desk","uuid":"\(uuid)","proximity":"immediate"},"repeats":true}}
            """)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 40, proximity: .near)).isEmpty)
        #expect(send(h, sighting("gw", 41, proximity: .unknown)).isEmpty)
        #expect(send(h, sighting("gw", 42, proximity: .immediate)) == ["entry:desk:gw"])
    }

    @Test func majorAndMinorNarrowTheRegion() throws {
        let h = Harness()
        try add(h, major: #","major":7"#)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 40, major: 1)).isEmpty)
        #expect(send(h, sighting("gw", 41, major: 7)) == ["entry:door:gw"])
    }

    @Test func eddystoneNamespaceRegion() throws {
        let h = Harness()
        try h.add("""
            {"identifier":"ed","trigger":{"region":{"type":"beacon","id":"ed","namespace":"00010203040506070809"},"repeats":true,"exitTimeout":5}}
            """)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        let s = BeaconSighting(device: "gw", timestamp: Harness.time(10), identity: .eddystoneUID(
            namespace: EddystoneNamespace(hex: "00010203040506070809")!, instance: EddystoneInstance(hex: "0a0b0c0d0e0f")!),
            rssi: -70, txPower: -59)
        #expect(send(h, s) == ["entry:ed:gw"])
        #expect(Harness.summary(h.listen("gw", 16)) == ["exit:ed:gw"])
    }

    @Test func telemetryOnlyFramesAreCountedNotMatched() throws {
        let h = Harness()
        try add(h)
        let s = BeaconSighting(device: "gw", timestamp: Harness.time(1), identity: nil, rssi: -70, txPower: nil,
                               telemetry: BeaconTelemetry(url: "https://example.com"))
        #expect(send(h, s).isEmpty)
        #expect(h.engine.statistics.telemetryFrames == 1)
    }
}
