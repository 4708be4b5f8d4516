import JSON
import EngineLog
import Journal
import Foundation
import Host
import Storage
import Testing
import TestSupport
import TriggerEngine

/// The journal's promise as a property: random requests, fixes and sightings, a crash after a random input (with
/// checkpoints taken at random points before it), a restart from the log, the rest of the input sent again; the
/// outbox then holds exactly the notifications of an uninterrupted run, byte for byte, under the same deliveryIds.
@Suite struct CrashRestoreTests {
    /// The scenario's inputs as host inputs: the requests, then each batch cut where fixes and sightings alternate.
    static func inputs(seed: UInt64) -> [HostInput] {
        let scenario = TimeScenario(seed: seed, devices: 8, observers: 3)
        var out: [HostInput] = [.requests(json: scenario.requestsJSON)]
        for batch in TimeScenario.batches(scenario.interleaved(seed: seed &+ 1, maxDisorder: nil), seed: seed &+ 2) {
            var fixes: [LocationFix] = [], sightings: [BeaconSighting] = []
            func flush() {
                if !fixes.isEmpty { out.append(.fixes(fixes)) }
                if !sightings.isEmpty { out.append(.sightings(sightings)) }
                fixes.removeAll()
                sightings.removeAll()
            }
            for input in batch {
                switch input {
                case .fix(let f):
                    if !sightings.isEmpty { flush() }
                    fixes.append(f)
                case .sighting(let s):
                    if !fixes.isEmpty { flush() }
                    sightings.append(s)
                }
            }
            flush()
        }
        return out
    }

    static func send(_ input: HostInput, to host: EngineHost) async throws {
        switch input {
        case .requests(let json): _ = try await host.add(try JSONParser.parse(json))
        case .fixes(let fixes): _ = try await host.process(fixes: fixes.enumerated().map { (line: $0.offset + 1, fix: $0.element) })
        case .sightings(let s): _ = try await host.process(sightings: s.enumerated().map { (line: $0.offset + 1, sighting: $0.element) })
        default: Issue.record("unexpected input \(input)")
        }
    }

    /// Runs `inputs` through a host on a memory log and a fresh store; returns the outbox.
    static func uninterrupted(_ inputs: [HostInput], fixture f: HostFixture) async throws -> [String: String] {
        let store = MemoryStore()
        let host = try EngineHost(store: store, log: MemoryHostLog(), configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        for input in inputs { try await send(input, to: host) }
        #expect(await host.feeder.feedPending())
        return HostFixture.outbox(host)
    }

    @Test(arguments: 0..<16)
    func crashAnywhereThenRestoreEqualsAnUninterruptedRun(seed: UInt64) async throws {
        let f = try HostFixture("crash-restore")
        let inputs = Self.inputs(seed: seed)
        let reference = try await Self.uninterrupted(inputs, fixture: f)
        #expect(reference.count > 0, "the scenario fires nothing: the property would be empty")

        var rng = SplitMix(seed: seed &* 7919 &+ 13)
        let log = MemoryHostLog()
        var host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
        var k = 0
        // Two crashes at random inputs; checkpoints at random inputs between; the outbox fed only sometimes.
        for _ in 0..<2 {
            let crashAt = rng.int(k, inputs.count)
            while k < crashAt {
                try await Self.send(inputs[k], to: host)
                k += 1
                if rng.chance(0.08) { try await host.checkpoint() }
                if rng.chance(0.2) { await host.feeder.feedPending() }
            }
            log.crash()
            host = try EngineHost(store: try f.store(), log: log, configuration: HostFixture.eventClock, sinks: HostFixture.sinks, logger: f.logger)
            #expect(host.restored.divergent == 0)
        }
        while k < inputs.count {
            try await Self.send(inputs[k], to: host)
            k += 1
        }
        #expect(await host.feeder.feedPending())
        let outbox = HostFixture.outbox(host)
        #expect(outbox.count == reference.count)
        let missing = reference.keys.filter { outbox[$0] == nil }.sorted().prefix(3)
        let extra = outbox.keys.filter { reference[$0] == nil }.sorted().prefix(3)
        let different = reference.keys.filter { outbox[$0] != nil && outbox[$0] != reference[$0] }.sorted().prefix(3)
        #expect(missing.isEmpty, "missing after restore: \(Array(missing))")
        #expect(extra.isEmpty, "extra after restore: \(Array(extra))")
        #expect(different.isEmpty, "other bytes after restore: \(Array(different))")
    }
}
