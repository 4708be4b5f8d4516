import EngineLog
import JSON
import Foundation
import Logging
import TestSupport
import Testing
import TriggerEngine

@testable import Storage

/// An engine saved to the file and restored from it continues exactly where it stopped: same states, same
/// deliveryId sequence, nothing fired twice.
@Suite struct RestoreTests {
    let path: String

    init() throws {
        let directory = try TestFolders.make("restore-tests")
        path = directory.appendingPathComponent("geotrigger.sqlite").path
    }

    /// Saves what a service saves after a batch: every device, every request's numbers, the counters.
    func save(_ engine: TriggerEngine, requests: [NotificationRequest], to store: SQLiteStore) throws {
        try store.write { db in
            for r in requests {
                guard let state = engine.state(ofRequest: r.identifier) else { continue }
                try RequestRepository().save(StoredRequest(identifier: r.identifier, json: Self.json(r.identifier, dwell: r.trigger.dwell), state: state), in: db)
            }
            for name in ["a", "b"] {
                if let s = engine.snapshot(ofDevice: name) { try DeviceStateRepository().save(s, in: db) }
            }
            try EngineMetaRepository().save(engine.counters, in: db)
        }
    }

    static func json(_ identifier: String, dwell: Double) -> String {
        """
        {"identifier": "\(identifier)", "content": {"title": "{device} {event}"},
         "trigger": {"type": "location", "repeats": true, "dwell": \(Int(dwell)),
                     "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132},
                                "radius": 100}}}
        """
    }

    @Test func restoredEngineFiresWhatTheUninterruptedOneFires() throws {
        let requests = [Fixture.request("plain"), Fixture.request("dwelling", dwell: 30)]
        let fixes: [LocationFix] = [
            Fixture.fix("a", second: 0, inside: false), Fixture.fix("b", second: 1, inside: false),
            Fixture.fix("a", second: 10, inside: true), Fixture.fix("b", second: 11, inside: true),
            // Restart here: both devices are inside, a dwell is pending for each.
            Fixture.fix("a", second: 60, inside: true), Fixture.fix("b", second: 61, inside: false),
            Fixture.fix("a", second: 70, inside: false), Fixture.fix("a", second: 80, inside: true),
        ]
        let reference = TriggerEngine()
        try reference.add(contentsOf: requests)
        var expected: [FiredNotification] = []
        for f in fixes { reference.process(f) { expected.append($0) } }

        let first = TriggerEngine()
        try first.add(contentsOf: requests)
        var got: [FiredNotification] = []
        for f in fixes[..<4] { first.process(f) { got.append($0) } }
        let store = try SQLiteStore(path: path, logger: Logger(label: "test"))
        try save(first, requests: requests, to: store)

        let second = TriggerEngine()
        let summary = try SQLiteStore(path: path, logger: Logger(label: "test")).restore(into: second, decoder: RequestDecoder())
        #expect(summary == RestoreSummary(requests: 2, delivered: 0, devices: 2, skipped: 0))
        #expect(second.status(ofDevice: "a") == first.status(ofDevice: "a"))
        for f in fixes[4...] { second.process(f) { got.append($0) } }

        #expect(got.map(\.deliveryId) == expected.map(\.deliveryId))
        #expect(got == expected)
    }

    @Test func restoredCountersNeverReuseARevision() throws {
        let engine = TriggerEngine()
        try engine.add(Fixture.request("x"))
        try engine.add(Fixture.request("x"))
        let store = try SQLiteStore(path: path, logger: Logger(label: "test"))
        try save(engine, requests: [Fixture.request("x")], to: store)
        let restored = TriggerEngine()
        _ = try store.restore(into: restored, decoder: RequestDecoder())
        #expect(restored.state(ofRequest: "x")?.revision == 2)
        try restored.add(Fixture.request("y"))
        #expect(restored.state(ofRequest: "y")?.revision == 3)
    }

    /// A beacon region's pending exit timeout is a deadline: it is scheduled again on restore and fires with the
    /// sighting that was stored as its evidence.
    @Test func pendingBeaconExitSurvivesRestore() throws {
        let json = """
            {"identifier": "dock", "content": {"title": "{device} {event} {beacon.proximity}"},
             "trigger": {"type": "location", "exitTimeout": 30, "repeats": true,
                         "region": {"type": "beacon", "id": "dock", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"}}}
            """
        let request = try RequestDecoder().decodeRequest(try JSONParser.parse(json))
        let uuid = try #require(UUID128(string: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        func sighting(_ device: String, _ second: Int64) -> BeaconSighting {
            BeaconSighting(device: device, timestamp: Timestamp(microseconds: (1_800_000_000 + second) * 1_000_000),
                           identity: .iBeacon(uuid: uuid, major: 1, minor: 2), rssi: -60, txPower: -59,
                           address: "AA:BB:CC:DD:EE:FF", proximity: .near, distance: 1.2)
        }
        let first = [sighting("gw", 0), sighting("gw", 60), sighting("gw", 70)]
        let later = sighting("other", 200)

        let reference = TriggerEngine()
        try reference.add(request)
        var expected: [FiredNotification] = []
        for s in first { reference.process(s) { expected.append($0) } }
        reference.process(later) { expected.append($0) }
        #expect(expected.contains { $0.event == .exit && $0.beacon != nil })

        let engine = TriggerEngine()
        try engine.add(request)
        var got: [FiredNotification] = []
        for s in first { engine.process(s) { got.append($0) } }
        let store = try SQLiteStore(path: path, logger: Logger(label: "test"))
        try store.write { db in
            try RequestRepository().save(StoredRequest(identifier: "dock", json: json, state: try #require(engine.state(ofRequest: "dock"))), in: db)
            try DeviceStateRepository().save(try #require(engine.snapshot(ofDevice: "gw")), in: db)
            try EngineMetaRepository().save(engine.counters, in: db)
        }
        let restored = TriggerEngine()
        _ = try store.restore(into: restored, decoder: RequestDecoder())
        #expect(restored.snapshot(ofDevice: "gw") == engine.snapshot(ofDevice: "gw"))
        restored.process(later) { got.append($0) }
        #expect(got == expected)
    }
}
