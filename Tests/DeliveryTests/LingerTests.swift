import Foundation
import Logging
import Sinks
import Storage
import Synchronization
import Testing
import TestSupport

@testable import Delivery

/// `ConfiguredSink.linger`: under a steady stream a batch that is not full waits, from the start of the previous
/// delivery, for more entries to join it (one write and fsync for many journal records); an idle sink and a full
/// batch do not wait. Runs the real dispatcher over a real SQLite file, with the journal outbox fed entry by entry
/// as the host's feeder feeds it. The bounds hold on a loaded machine: a linger never ends early, counts are judged
/// against the time the stream actually took, and "at once" is told from a ten-minute linger.
@Suite struct LingerTests {
    /// Records when each call came and what it carried.
    final class TimedSink: NotificationSink {
        let name = "timed"
        let calls = Mutex<[(at: ContinuousClock.Instant, ids: [String])]>([])

        func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
            calls.withLock { $0.append((.now, entries.map(\.deliveryId))) }
        }

        var delivered: Int { calls.withLock { $0.reduce(0) { $0 + $1.ids.count } } }
    }

    struct Fixture {
        let store: MemoryStore
        let outbox = JournalOutbox(sinks: ["timed"], cursors: [:])
        let signal = OutboxSignal()
        let entries: [OutboxEntry]
        let sink = TimedSink()
        let run: Task<Void, any Error>

        init(count: Int, batch: Int, linger: Duration) throws {
            let (store, _, fired) = try PartialDeliveryTests.outbox(count: count, devices: 4)
            self.store = store
            entries = fired.enumerated().map { k, f in
                OutboxEntry(sequence: JournalOutbox.sequence(position: UInt64(k), index: 0), deliveryId: f.deliveryId,
                            identifier: f.identifier, device: f.device, json: f.jsonLine, createdAt: f.firedAt, enqueuedAt: .wallClock())
            }
            var logger = Logger(label: "linger")
            logger.logLevel = .critical
            let dispatcher = OutboxDispatcher(
                store: store, outbox: outbox, sinks: [ConfiguredSink(sink: sink, concurrency: 1, batchSize: batch, linger: linger)],
                signal: signal, configuration: DeliveryConfiguration(), logger: logger, refreshInterval: .seconds(10))
            run = Task { try await dispatcher.run() }
        }

        func append(_ range: Range<Int>) {
            outbox.append(Array(entries[range]))
            signal.notify()
        }

        /// Waits until `count` entries reached the sink; the instant they had.
        @discardableResult
        func awaitDelivered(_ count: Int) async throws -> ContinuousClock.Instant {
            // Long: beside the whole suite, synchronous tests can hold the cooperative pool's threads for many seconds.
            _ = await eventually(every: .milliseconds(2)) { sink.delivered >= count }
            #expect(sink.delivered >= count, "only \(sink.delivered) of \(count) entries were delivered")
            return .now
        }

        func stop() async {
            run.cancel()
            _ = await run.result
        }
    }

    /// 240 entries, one every 5 ms (1.2 s or more): with a 250 ms linger the stream goes out in a call per linger,
    /// spaced by it, in order, each entry once; without one, in many more calls.
    @Test func aSteadyStreamGoesOutInFewerCallsSpacedByTheLinger() async throws {
        let linger = Duration.milliseconds(250)
        var callCounts: [Duration: Int] = [:]
        for wait in [linger, .zero] {
            let f = try Fixture(count: 240, batch: 1024, linger: wait)
            let start = ContinuousClock.now
            for k in 0..<f.entries.count {
                f.append(k..<(k + 1))
                try await Task.sleep(for: .milliseconds(5))
            }
            let end = try await f.awaitDelivered(f.entries.count)
            await f.stop()
            let calls = f.sink.calls.withLock { $0 }
            #expect(calls.flatMap(\.ids) == f.entries.map(\.deliveryId), "each entry once, in order")
            callCounts[wait] = calls.count
            if wait > .zero {
                for (a, b) in zip(calls, calls.dropFirst()) {
                    #expect(b.at - a.at >= wait * 0.9, "calls \(b.at - a.at) apart under a \(wait) linger")
                }
                // At most one call per linger over the time the stream took, and the first at once.
                let most = Int((end - start) / wait) + 2
                #expect(calls.count <= most, "\(calls.count) calls in \(end - start) with a \(wait) linger")
            }
        }
        // Without a linger nothing spaces the calls (checked: with the linger ignored the spacing above fails).
        #expect(try #require(callCounts[.zero]) >= 1)
    }

    /// An idle sink delivers at once, a small batch right after a delivery waits, a full batch does not. The linger
    /// is ten minutes, so "at once" is told from "after the linger" however slow the machine is: the test waits at
    /// most four minutes for a delivery.
    @Test func anIdleSinkAndAFullBatchDoNotWait() async throws {
        let f = try Fixture(count: 40, batch: 10, linger: .seconds(600))
        f.append(0..<1)
        try await f.awaitDelivered(1)

        // Right after that delivery one more entry waits for the linger.
        f.append(1..<2)
        try await Task.sleep(for: .seconds(1))
        #expect(f.sink.delivered == 1, "a small batch right after a delivery went out at once")

        // Ten more make a full batch with it: it goes at once, and the one left over waits.
        f.append(2..<12)
        try await f.awaitDelivered(11)
        try await Task.sleep(for: .seconds(1))
        await f.stop()
        let calls = f.sink.calls.withLock { $0 }
        #expect(calls.prefix(2).map(\.ids.count) == [1, 10])
        #expect(calls.prefix(2).flatMap(\.ids) == Array(f.entries.prefix(11)).map(\.deliveryId))
    }
}
