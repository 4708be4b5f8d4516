import Foundation
import Logging
import Storage
import Synchronization
import Testing

@testable import Delivery

/// `ConfiguredSink.linger`: under a steady stream a batch that is not full waits, from the start of the previous
/// delivery, for more entries to join it (one write and fsync for many journal records); an idle sink and a full
/// batch do not wait. Runs the real dispatcher over a real SQLite file, with the journal outbox fed entry by entry
/// as the host's feeder feeds it. The bounds hold on a loaded machine: a linger never ends early, and counts are
/// judged against the time the stream actually took.
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
        let store: Store
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
            let deadline = ContinuousClock.now + .seconds(30)
            while sink.delivered < count {
                guard ContinuousClock.now < deadline else { break }
                try await Task.sleep(for: .milliseconds(2))
            }
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
        let lingering = try #require(callCounts[linger]), immediate = try #require(callCounts[.zero])
        #expect(immediate >= 2 * lingering, "\(immediate) calls without the linger, \(lingering) with it")
    }

    /// An idle sink delivers at once; right after a delivery a small batch waits out the linger; a full batch
    /// never waits.
    @Test func anIdleSinkAndAFullBatchDoNotWait() async throws {
        // Longer than the production bound, so "at once" and "after the linger" stay apart on a loaded machine.
        let linger = Duration.seconds(3)
        let soon = Duration.milliseconds(1500)
        let f = try Fixture(count: 40, batch: 10, linger: linger)
        var start = ContinuousClock.now
        f.append(0..<1)
        #expect(try await f.awaitDelivered(1) - start < soon, "the first entry waited")

        // Just after a delivery: the next small batch waits until the linger has passed since it began.
        let first = try #require(f.sink.calls.withLock { $0.last?.at })
        f.append(1..<2)
        try await f.awaitDelivered(2)
        let second = try #require(f.sink.calls.withLock { $0.last?.at })
        #expect(second - first >= linger * 0.9, "a small batch right after a delivery went out after \(second - first)")

        // Idle for longer than the linger: at once again.
        try await Task.sleep(for: linger + .milliseconds(300))
        start = .now
        f.append(2..<3)
        #expect(try await f.awaitDelivered(3) - start < soon, "an entry after an idle linger waited")

        // 25 at once right after that delivery: two full batches go at once, the 5 left wait for the linger.
        start = .now
        f.append(3..<28)
        try await f.awaitDelivered(23)
        #expect(ContinuousClock.now - start < soon, "full batches waited")
        try await f.awaitDelivered(28)
        await f.stop()
        let calls = f.sink.calls.withLock { $0 }
        #expect(calls.map(\.ids.count) == [1, 1, 1, 10, 10, 5])
        if calls.count == 6 {
            #expect(calls[5].at - calls[4].at >= linger * 0.9, "the last 5 went out \(calls[5].at - calls[4].at) after the full batch")
        }
        #expect(calls.flatMap(\.ids) == Array(f.entries.prefix(28)).map(\.deliveryId))
    }
}
