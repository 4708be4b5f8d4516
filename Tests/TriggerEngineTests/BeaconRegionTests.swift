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

    // MARK: When sightings start (docs/semantics.md "Beacons": the initial scan window)

    @Test func shortVisitAfterTheInitialWindowGivesAnEntryAndAnExit() throws {
        let h = Harness()
        try add(h, #","exitTimeout":30"#)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        // First heard 12 s after the scanner started, well inside the first exitTimeout: it arrived, so an entry.
        #expect(send(h, sighting("gw", 12)) == ["entry:door:gw"])
        #expect(send(h, sighting("gw", 17)).isEmpty)
        #expect(h.listen("gw", 46.9).isEmpty)
        #expect(Harness.summary(h.listen("gw", 48)) == ["exit:door:gw"])
        #expect(h.out.map(\.firedAt) == [Harness.time(12), Harness.time(47)])
    }

    @Test func beaconHeardWithinTheInitialWindowWasAlreadyThere() throws {
        let h = Harness()
        try add(h, #","exitTimeout":30"#)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 0.1)).isEmpty)
        #expect(send(h, sighting("gw", 10)).isEmpty)
        // Inside all along, so leaving is an exit.
        #expect(Harness.summary(h.listen("gw", 41)) == ["exit:door:gw"])
        #expect(h.out.first?.firedAt == Harness.time(40))

        let h2 = Harness()
        try add(h2, #","exitTimeout":30,"initialTrigger":true"#)
        h2.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h2, sighting("gw", 0.1)) == ["entry:door:gw"])
    }

    @Test func theInitialWindowIsTwoSecondsFromTheStart() throws {
        for (t, expected) in [(1.999, [String]()), (2.0, ["entry:door:gw"])] {
            let h = Harness()
            try add(h, #","exitTimeout":30"#)
            h.engine.observerStarted(device: "gw", at: Harness.time(0))
            #expect(send(h, sighting("gw", t)) == expected, "first heard at \(t) s")
        }
    }

    @Test func theInitialWindowIsCappedByTheExitTimeout() throws {
        let h = Harness()
        try add(h, #","exitTimeout":1"#)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 1.5)) == ["entry:door:gw"])
    }

    @Test func anObserverWithoutAStartBeginsListeningAtItsFirstSighting() throws {
        let h = Harness()
        try add(h, #","exitTimeout":30"#)
        try h.add("""
            {"identifier":"desk","trigger":{"region":{"type":"beacon","id":"desk","uuid":"\(uuid)","major":9},"repeats":true,"exitTimeout":30}}
            """)
        // The gateway's first sighting (major 1) sets the door's state silently; major 9 first heard 5 s later arrived.
        #expect(send(h, sighting("gw", 100)).isEmpty)
        #expect(send(h, sighting("gw", 105, major: 9)) == ["entry:desk:gw"])
    }

    @Test func aRequestAddedLaterHasItsOwnInitialWindow() throws {
        let h = Harness()
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        // Moves the event-time clock to 100, when the request is then added.
        #expect(send(h, sighting("gw", 100)).isEmpty)
        try add(h, #","exitTimeout":30"#)
        #expect(send(h, sighting("gw", 101)).isEmpty, "heard within 2 s of the request being added: already there")

        let h2 = Harness()
        h2.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h2, sighting("gw", 100)).isEmpty)
        try add(h2, #","exitTimeout":30"#)
        #expect(send(h2, sighting("gw", 103)) == ["entry:door:gw"])
    }

    @Test func anArrivalAfterTheWindowWaitsForDwell() throws {
        let h = Harness()
        try add(h, #","exitTimeout":30,"dwell":10"#)
        h.engine.observerStarted(device: "gw", at: Harness.time(0))
        #expect(send(h, sighting("gw", 5)).isEmpty)
        #expect(send(h, sighting("gw", 16)) == ["entry:door:gw"])
        #expect(h.out.first?.firedAt == Harness.time(15))
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
