import Foundation
import Host
import JSON
import Storage
import Testing
import TriggerEngine

/// The wall clock's ticks that change nothing but the clock are not journaled on their own (an idle service writes
/// nothing), yet a restart, even one that lost the tick held back, ends in the state of an uninterrupted run:
/// the same notifications under the same deliveryIds, the same devices. Ticks that fire something are journaled.
@Suite struct QuietClockTests {
    static let wall = TriggerEngine.Configuration(clock: .external)
    static let requests = """
        [\(HostFixture.request("alex")),
         {"identifier":"dwell","content":{"title":"Stayed"},"trigger":{"region":{"type":"circle","id":"alex-dwell","center":{"latitude":52.5219,"longitude":13.4132},"radius":200},"repeats":true,"dwell":20}}]
        """
    /// Fixes by second: devices entering (a dwell then fires by the clock, past the allowed lateness), leaving and
    /// coming back.
    static let fixes: [Int: [LocationFix]] = [
        5: [HostFixture.fix("a", 5, inside: true)],
        30: [HostFixture.fix("b", 30, inside: true)],
        150: [HostFixture.fix("a", 150, inside: false)],
        200: [HostFixture.fix("a", 200, inside: true), HostFixture.fix("c", 200, inside: true)],
    ]
    static let seconds = 0..<400

    static func time(_ second: Int) -> Timestamp { Timestamp(microseconds: Int64(1_760_000_000 + second) * 1_000_000) }

    /// Sends second `s`: its tick, then its fixes (awaited, so durable).
    static func send(second s: Int, to host: EngineHost) async throws {
        try await host.advance(to: time(s))
        if let batch = fixes[s] { _ = try await host.process(fixes: batch, lines: Array(1...batch.count)) }
    }

    static func devices(_ host: EngineHost) async -> [DeviceStatus] {
        var out: [DeviceStatus] = []
        for d in ["a", "b", "c"] { if let s = await host.status(ofDevice: d) { out.append(s) } }
        return out
    }

    @Test func idleTicksAreNotJournaledAndFiringOnesAre() async throws {
        let f = try HostFixture("quiet-ticks")
        let log = MemoryHostLog()
        let host = try EngineHost(store: try f.store(), log: log, configuration: Self.wall, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(Self.requests))
        for s in Self.seconds { try await Self.send(second: s, to: host) }
        await host.writeHeldTick()
        await host.drainWrites()
        #expect(await host.feeder.feedPending())
        let fired = HostFixture.outbox(host).count
        #expect(fired >= 4, "the scenario fires \(fired)")
        // The requests, 4 fix batches each with the tick held before it, the ticks that fired, the last tick.
        let ceiling = 1 + 2 * Self.fixes.count + fired + 1
        #expect(log.nextPosition <= UInt64(ceiling), "\(log.nextPosition) records for \(Self.seconds.count) ticks")
    }

    /// Crashes at seconds where a tick is held (never journaled) and where one just fired; each restart loses what
    /// was not durable, and the ticks go on from the next second, as the wall clock would.
    @Test(arguments: [[40, 120], [86, 151, 260], [3, 111, 201, 399]])
    func restartsThatLoseAHeldTickEndAsAnUninterruptedRun(crashes: [Int]) async throws {
        let f = try HostFixture("quiet-restore")
        let (reference, host) = try await f.runWithCrashes(
            crashes, seconds: Self.seconds, configuration: Self.wall,
            setUp: { _ = try await $0.add(try JSONParser.parse(Self.requests)) },
            send: { try await Self.send(second: $0, to: $1) })
        #expect(HostFixture.outbox(host) == HostFixture.outbox(reference))
        #expect(await Self.devices(host) == Self.devices(reference))
    }
}
