import Host
import Storage
import Testing
import TriggerEngine

extension HostFixture {
    /// Runs `seconds` through `send` twice: once uninterrupted (the reference, on its own store and log), and once
    /// on this fixture's store and a `MemoryHostLog` that crashes after each second in `crashes`: what was written
    /// becomes durable (as the writer's fsync would make it), anything the host held back is lost, and a new host
    /// restores from the log and goes on from the next second. Both outboxes are fed before they are returned.
    func runWithCrashes(_ crashes: [Int], seconds: Range<Int>, configuration: TriggerEngine.Configuration,
                        setUp: (EngineHost) async throws -> Void,
                        send: (Int, EngineHost) async throws -> Void) async throws -> (reference: EngineHost, crashed: EngineHost) {
        let reference = try EngineHost(store: MemoryStore(), log: MemoryHostLog(), configuration: configuration,
                                       sinks: Self.sinks, logger: logger)
        try await setUp(reference)
        for s in seconds { try await send(s, reference) }
        #expect(await reference.feeder.feedPending())

        let log = MemoryHostLog()
        var host = try EngineHost(store: try store(), log: log, configuration: configuration, sinks: Self.sinks, logger: logger)
        try await setUp(host)
        for s in seconds {
            try await send(s, host)
            guard crashes.contains(s) else { continue }
            await host.drainWrites()
            try await log.waitDurable(through: log.nextPosition)
            log.crash()
            host = try EngineHost(store: try store(), log: log, configuration: configuration, sinks: Self.sinks, logger: logger)
            #expect(host.restored.divergent == 0)
        }
        #expect(await host.feeder.feedPending())
        return (reference, host)
    }
}
