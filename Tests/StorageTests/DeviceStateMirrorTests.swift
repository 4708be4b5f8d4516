import Foundation
import GRDB
import Logging
import Testing
import TriggerEngine

@testable import Storage

/// Writing only the differences (`DeviceStateMirror`) stores exactly what a full rewrite stores: after every batch,
/// a restore from either file gives the engine's own snapshots back, pairs in the engine's order.
@Suite struct DeviceStateMirrorTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Circles around points east of Alexanderplatz; `minimumInterval` keeps a pair stored after its exit for a while,
    /// dwell keeps one in `entering`, so pairs are added, changed and dropped in varied orders.
    static func json(_ identifier: String, east meters: Double, radius: Double, dwell: Int = 0, interval: Int = 0) -> String {
        let longitude = 13.4132 + meters / 67_800
        return """
            {"identifier": "\(identifier)", "content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": true, "dwell": \(dwell), "minimumInterval": \(interval),
                         "region": {"type": "circle", "id": "\(identifier)",
                                    "center": {"latitude": 52.5219, "longitude": \(longitude)}, "radius": \(radius)}}}
            """
    }

    static func fix(_ device: String, second: Int, east meters: Double) -> LocationFix {
        LocationFix(device: device, timestamp: Timestamp(microseconds: Int64(1_800_000_000 + second) * 1_000_000),
                    latitude: 52.5219, longitude: 13.4132 + meters / 67_800)
    }

    @Test func partialWritesRestoreWhatAFullWriteRestores() throws {
        let logger = Logger(label: "test")
        let partialStore = try Store(path: directory.appendingPathComponent("partial.sqlite").path, logger: logger)
        let fullStore = try Store(path: directory.appendingPathComponent("full.sqlite").path, logger: logger)
        let engine = TriggerEngine()
        var requests: [String: String] = [:]
        var mirror = DeviceStateMirror()
        let devices = ["a", "b", "c"]
        var upserts = 0, pairsInSnapshots = 0

        func add(_ identifier: String, _ json: String) throws {
            try engine.add(try RequestDecoder().decodeRequest(try JSONParser.parse(json)))
            requests[identifier] = json
            let state = try #require(engine.state(ofRequest: identifier))
            for store in [partialStore, fullStore] {
                try store.write { db in
                    try RequestRepository().save(StoredRequest(identifier: identifier, json: json, state: state), in: db)
                    try EngineMetaRepository().save(engine.counters, in: db)
                }
            }
        }

        func remove(_ identifier: String) throws {
            _ = engine.remove(identifiers: [identifier])
            requests[identifier] = nil
            for store in [partialStore, fullStore] {
                _ = try store.write { db in try RequestRepository().delete(identifiers: [identifier], in: db) }
            }
        }

        /// One batch: the fixes, then the touched devices written both ways, then both files restored and checked.
        /// Returns how many devices had something to write.
        @discardableResult
        func batch(_ fixes: [LocationFix]) throws -> Int {
            for f in fixes { engine.process(f) { _ in } }
            let touched = Set(fixes.map(\.device)).sorted()
            var changes: [DeviceStateChange] = []
            for name in touched {
                let change = engine.snapshot(ofDevice: name).map(mirror.change(to:)) ?? mirror.removal(of: name)
                upserts += change.pairUpserts.count
                pairsInSnapshots += engine.snapshot(ofDevice: name)?.pairs.count ?? 0
                if !change.isEmpty { changes.append(change) }
            }
            try partialStore.write { db in
                for c in changes { try DeviceStateRepository().apply(c, in: db) }
                try EngineMetaRepository().save(engine.counters, in: db)
            }
            mirror.commit(changes)
            try fullStore.write { db in
                for name in touched {
                    if let s = engine.snapshot(ofDevice: name) {
                        try DeviceStateRepository().save(s, in: db)
                    } else {
                        try DeviceStateRepository().delete(device: name, in: db)
                    }
                }
                try EngineMetaRepository().save(engine.counters, in: db)
            }
            for store in [partialStore, fullStore] {
                let restored = TriggerEngine()
                _ = try store.restore(into: restored, decoder: RequestDecoder())
                for name in devices {
                    #expect(restored.snapshot(ofDevice: name) == engine.snapshot(ofDevice: name), "device \(name)")
                }
            }
            return changes.count
        }

        try add("west", Self.json("west", east: 0, radius: 150, interval: 600))
        try add("middle", Self.json("middle", east: 200, radius: 150, dwell: 30))
        try add("east", Self.json("east", east: 400, radius: 150, interval: 600))
        try add("wide", Self.json("wide", east: 200, radius: 450))

        // Devices walk east and back, entering and leaving in different orders.
        var second = 0
        let walk: [Double] = [-1000, 0, 100, 200, 300, 400, 1200, 400, 200, 0, -1000, 200, 400]
        for (k, meters) in walk.enumerated() {
            second += 20
            try batch([Self.fix("a", second: second, east: meters),
                       Self.fix("b", second: second + 1, east: walk[(k + 3) % walk.count]),
                       Self.fix("c", second: second + 2, east: walk[walk.count - 1 - k])])
            if k == 5 {
                // A replaced request's stored pairs must not come back; its new revision's pairs are written anew.
                try add("middle", Self.json("middle", east: 200, radius: 180, dwell: 10))
            }
            if k == 8 { try remove("east") }
            if k == 10 { try add("east", Self.json("east", east: 400, radius: 150)) }
        }
        // Long quiet, then one fix each: minimum intervals run out, pairs are dropped.
        second += 3600
        try batch(devices.map { Self.fix($0, second: second, east: -1000) })
        // The same fixes again (rejected as late): nothing changes, nothing but the counters is written.
        #expect(try batch(devices.map { Self.fix($0, second: second, east: -1000) }) == 0)
        #expect(mirror.count == devices.count)

        #expect(pairsInSnapshots > 0)
        #expect(upserts < pairsInSnapshots, "unchanged pairs were written again")
        let stored = try partialStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pair_states") ?? 0 }
        let full = try fullStore.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pair_states") ?? 0 }
        #expect(stored == full)
    }

    /// A pair order the engine did not produce by appending (simulated by a reversed snapshot) renumbers the pairs,
    /// so the stored order still follows the snapshot.
    @Test func reorderedPairsAreRenumbered() throws {
        let store = try Store(path: directory.appendingPathComponent("order.sqlite").path, logger: Logger(label: "test"))
        let pairs = (0..<4).map { DeviceSnapshot.Pair(identifier: "r\($0)", revision: UInt64($0 + 1), state: "s\($0)") }
        let first = DeviceSnapshot(device: "d", lastFix: nil, lastSighting: nil, state: "x", pairs: pairs)
        var mirror = DeviceStateMirror()
        let c1 = mirror.change(to: first)
        #expect(c1.kind == .rewrite)
        try store.write { db in try DeviceStateRepository().apply(c1, in: db) }
        mirror.commit([c1])

        var second = first
        second.pairs = Array(pairs.reversed().dropFirst()) + [.init(identifier: "new", revision: 9, state: "n")]
        let c2 = mirror.change(to: second)
        #expect(c2.kind == .partial && !c2.writesRow)
        #expect(c2.pairDeletes == ["r3"])
        try store.write { db in try DeviceStateRepository().apply(c2, in: db) }
        mirror.commit([c2])
        #expect(try store.read { db in try DeviceStateRepository().find("d", in: db) } == second)

        // Appending and changing one keeps the others' rows untouched.
        var third = second
        third.pairs[1].state = "changed"
        third.pairs.append(.init(identifier: "later", revision: 10, state: "l"))
        let c3 = mirror.change(to: third)
        #expect(c3.pairUpserts.map(\.identifier) == ["r1", "later"])
        try store.write { db in try DeviceStateRepository().apply(c3, in: db) }
        #expect(try store.read { db in try DeviceStateRepository().find("d", in: db) } == third)
    }
}
