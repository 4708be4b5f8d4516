import Foundation
import Logging
import Storage
import Synchronization
import Testing

@testable import Delivery

/// `ConfiguredSink.linger`: under a steady stream a batch that is not full waits, from the start of the previous
/// delivery, for more entries to join it (one write and fsync for many journal records); an idle sink and a full
/// batch do not wait. Runs the real dispatcher over a real SQLite file, with the journal outbox fed entry by entry
/// as the host's feeder feeds it. The margins are wide: the waits tested are hundreds of milliseconds.
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

    /// 240 entries, one every 5 ms (1.2 s): with a 250 ms linger the stream goes out in a handful of calls spaced
    /// by the linger, in order, each entry once; without one, in many calls.
    @Test func aSteadyStreamGoesOutInFewerCallsSpacedByTheLinger() async throws {
        var callCounts: [Duration: Int] = [:]
        for linger in [Duration.milliseconds(250), .zero] {
            let f = try Fixture(count: 240, batch: 1024, linger: linger)
            for k in 0..<f.entries.count {
                f.append(k..<(k + 1))
                try await Task.sleep(for: .milliseconds(5))
            }
            try await f.awaitDelivered(f.entries.count)
            await f.stop()
            let calls = f.sink.calls.withLock { $0 }
            #expect(calls.flatMap(\.ids) == f.entries.map(\.deliveryId), "each entry once, in order")
            callCounts[linger] = calls.count
            if linger > .zero {
                for (a, b) in zip(calls, calls.dropFirst()) {
                    #expect(b.at - a.at >= linger * 0.9, "calls \(b.at - a.at) apart under a \(linger) linger")
                }
            }
        }
        let lingering = try #require(callCounts[.milliseconds(250)]), immediate = try #require(callCounts[.zero])
        // 1.2 s of stream (longer on a loaded machine) in 250 ms steps: about 6 calls.
        #expect(lingering <= 12, "\(lingering) calls with the linger")
        #expect(immediate >= 30, "\(immediate) calls without it")
    }

    /// An idle sink delivers at once; right after a delivery a small batch waits out the linger; a full batch
    /// never waits.
    @Test func anIdleSinkAndAFullBatchDoNotWait() async throws {
        let linger = Duration.seconds(1)
        let f = try Fixture(count: 40, batch: 10, linger: linger)
        var start = ContinuousClock.now
        f.append(0..<1)
        #expect(try await f.awaitDelivered(1) - start < .milliseconds(500), "the first entry waited")

        // Just after a delivery: the next small batch waits until a second after it began.
        let first = try #require(f.sink.calls.withLock { $0.last?.at })
        f.append(1..<2)
        try await f.awaitDelivered(2)
        let second = try #require(f.sink.calls.withLock { $0.last?.at })
        #expect(second - first >= linger * 0.9, "a small batch right after a delivery went out after \(second - first)")

        // Idle for longer than the linger: at once again.
        try await Task.sleep(for: linger + .milliseconds(300))
        start = .now
        f.append(2..<3)
        #expect(try await f.awaitDelivered(3) - start < .milliseconds(500), "an entry after an idle second waited")

        // 25 at once right after that delivery: two full batches go at once, the 5 left wait for the linger.
        start = .now
        f.append(3..<28)
        try await f.awaitDelivered(23)
        #expect(ContinuousClock.now - start < .milliseconds(500), "full batches waited")
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
