import Foundation
import Host
import JSON
import Storage
import Testing
import TriggerEngine

/// A scanner's listening ticks (`serve --bluetooth`, one a second) that can change nothing are held like idle clock
/// ticks, so a gateway that hears no beacon writes nothing; ticks that settle a beacon exit are journaled, and a
/// restart that loses the held ones ends as an uninterrupted run.
@Suite struct QuietListeningTests {
    static let wall = TriggerEngine.Configuration(clock: .external)
    static let uuid = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
    static let requests = """
        [{"identifier":"door","content":{"title":"{event} at {region.id}"},
          "trigger":{"region":{"type":"beacon","id":"door","uuid":"\(uuid)"},"repeats":true,"exitTimeout":30}}]
        """

    static func time(_ second: Int) -> Timestamp { Timestamp(microseconds: Int64(1_760_000_000 + second) * 1_000_000) }

    static func sighting(_ second: Int) -> BeaconSighting {
        BeaconSighting(device: "gw", timestamp: time(second), identity: .iBeacon(uuid: UUID128(string: uuid)!, major: 1, minor: 2),
                       rssi: -60, txPower: -59, address: "C0:FF:EE:00:00:01", proximity: .near, distance: 1.2)
    }

    /// The gateway's seconds: the clock tick and its listening tick each second, a beacon heard at 100 and 110
    /// (an entry, then an exit by the listening ticks 30 s after the last), quiet otherwise.
    static func send(second s: Int, to host: EngineHost) async throws {
        try await host.advance(to: time(s))
        if s == 100 || s == 110 { _ = try await host.process(sightings: [sighting(s)], lines: [1]) }
        try await host.observerListening(device: "gw", at: time(s))
    }

    static let seconds = 1..<500

    @Test func quietListeningIsHeldAndListeningThatSettlesAnExitIsJournaled() async throws {
        let f = try HostFixture("quiet-listening")
        let log = MemoryHostLog()
        let host = try EngineHost(store: try f.store(), log: log, configuration: Self.wall, sinks: HostFixture.sinks, logger: f.logger)
        _ = try await host.add(try JSONParser.parse(Self.requests))
        try await host.observerStarted(device: "gw", at: Self.time(0))
        let start = log.nextPosition
        for s in 1..<100 { try await Self.send(second: s, to: host) }
        #expect(log.nextPosition == start, "99 quiet seconds journaled \(log.nextPosition - start) records")
        // Inside the beacon region, the ticks count down its exit: journaled.
        for s in 100..<150 { try await Self.send(second: s, to: host) }
        #expect(log.nextPosition - start >= 2 + 30)
        // After the exit the clock still settles the pair once the allowed lateness has passed (a clock record,
        // with the listening tick held before it); then the gateway is quiet again.
        for s in 150..<300 { try await Self.send(second: s, to: host) }
        let quietAgain = log.nextPosition
        for s in 300..<500 { try await Self.send(second: s, to: host) }
        #expect(log.nextPosition == quietAgain, "quiet again, yet \(log.nextPosition - quietAgain) records")
        #expect(await host.feeder.feedPending())
        #expect(Set(HostFixture.outbox(host).values.map { $0.contains("entry") ? "entry" : "exit" }) == ["entry", "exit"])
    }

    /// Crashes while listening ticks are held (quiet) and while they count down an exit; each restart loses
    /// what was held, and the gateway goes on from the next second.
    @Test(arguments: [[50, 120], [99, 105, 141], [3, 140, 250]])
    func restartsThatLoseHeldListeningEndAsAnUninterruptedRun(crashes: [Int]) async throws {
        let f = try HostFixture("quiet-listening-restore")
        let (reference, host) = try await f.runWithCrashes(
            crashes, seconds: Self.seconds, configuration: Self.wall,
            setUp: { host in
                _ = try await host.add(try JSONParser.parse(Self.requests))
                try await host.observerStarted(device: "gw", at: Self.time(0))
            },
            send: { try await Self.send(second: $0, to: $1) })
        #expect(HostFixture.outbox(host) == HostFixture.outbox(reference))
        #expect(await host.status(ofDevice: "gw") == reference.status(ofDevice: "gw"))
    }
}
