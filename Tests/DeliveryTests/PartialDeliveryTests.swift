import JSON
import Foundation
import Logging
import Sinks
import Storage
import Synchronization
import TestSupport
import Testing
import TriggerEngine

@testable import Delivery

/// A sink that takes a prefix of a batch and reports `.partial` (a broker that acknowledges messages one by one and
/// refuses one of them): only the refused entry becomes a dead letter, the ones before it are acknowledged once,
/// and its device goes on in order. Runs the real dispatcher over a real SQLite outbox.
@Suite struct PartialDeliveryTests {
    /// Refuses the entries in `refused` for good, fails retryably once at each entry in `flaky` (after taking what
    /// came before it), and records every entry it took.
    final class PickySink: NotificationSink {
        let name = "picky"
        let refused: Set<String>
        let flaky: Mutex<Set<String>>
        let taken = Mutex<[OutboxEntry]>([])

        init(refused: Set<String>, flaky: Set<String>) {
            self.refused = refused
            self.flaky = Mutex(flaky)
        }

        func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
            for (k, e) in entries.enumerated() {
                if refused.contains(e.deliveryId) {
                    throw .partial(delivered: k, failure: .permanent(reason: "refused \(e.deliveryId)", status: nil, response: "no"))
                }
                if flaky.withLock({ $0.remove(e.deliveryId) != nil }) {
                    throw .partial(delivered: k, failure: .retryable(reason: "busy at \(e.deliveryId)", after: .milliseconds(5)))
                }
                taken.withLock { $0.append(e) }
            }
        }
    }

    /// `count` real notifications from the engine, devices round-robin, appended to a new outbox.
    static func outbox(count: Int, devices: Int) throws -> (MemoryStore, JournalOutbox, [FiredNotification]) {
        let json = """
            {"identifier": "partial", "content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": true,
                         "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
            """
        let engine = TriggerEngine()
        try engine.add(try RequestDecoder().decodeRequest(try JSONParser.parse(json)))
        var fired: [FiredNotification] = []
        for s in 0..<(count / devices + 1) {
            for d in 0..<devices {
                let fix = LocationFix(device: "dev-\(d)", timestamp: Timestamp(microseconds: Int64(1_800_000_000 + s * 10 + d) * 1_000_000),
                                      latitude: s % 2 == 0 ? 52.53 : 52.5219, longitude: 13.4132)
                engine.process(fix) { fired.append($0) }
            }
        }
        fired = Array(fired.prefix(count))
        let store = MemoryStore()
        // As the host's feeder does: the notifications of durable journal records, a few per record.
        let outbox = JournalOutbox(sinks: ["picky"], cursors: [:])
        outbox.append(fired.enumerated().map { k, f in
            OutboxEntry(sequence: JournalOutbox.sequence(position: UInt64(k / 3), index: k % 3), deliveryId: f.deliveryId,
                        identifier: f.identifier, device: f.device, json: f.jsonLine, createdAt: f.firedAt, enqueuedAt: .wallClock())
        })
        #expect(outbox.extent.entries == fired.count)
        return (store, outbox, fired)
    }

    @Test(arguments: [1, 4])
    func onlyTheRefusedEntryIsDeadLetteredAndTheRestArriveInOrder(concurrency: Int) async throws {
        let (store, outbox, fired) = try Self.outbox(count: 120, devices: 4)
        let ids = fired.map(\.deliveryId)
        let refused = Set(stride(from: 3, to: ids.count, by: 11).map { ids[$0] })
        let flaky = Set(stride(from: 7, to: ids.count, by: 13).map { ids[$0] }).subtracting(refused)
        let sink = PickySink(refused: refused, flaky: flaky)
        var logger = Logger(label: "partial")
        logger.logLevel = .critical
        let dispatcher = OutboxDispatcher(
            store: store, outbox: outbox, sinks: [ConfiguredSink(sink: sink, concurrency: concurrency, batchSize: 16)], signal: OutboxSignal(),
            configuration: DeliveryConfiguration(retry: RetryPolicy(initial: .milliseconds(5), maximum: .milliseconds(20))),
            logger: logger, refreshInterval: .milliseconds(20))
        let run = Task { try await dispatcher.run() }
        // Bound by the work (every entry settled), not by a clock a loaded machine can miss: with four busy loops
        // beside the whole suite, the dispatcher's 5–20 ms retries once took over 90 s to settle 120 entries. The
        // deadline only ends a hang.
        _ = await eventually(every: .milliseconds(20)) { outbox.depth(of: "picky") == 0 }
        run.cancel()
        _ = await run.result

        let taken = sink.taken.withLock { $0 }.map(\.deliveryId)
        // Every entry but the refused ones, each exactly once (the sink only records what it took), in firing order
        // per device (globally with one lane).
        #expect(Set(taken) == Set(ids).subtracting(refused))
        #expect(taken.count == Set(taken).count, "an acknowledged entry was delivered again")
        let position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let byDevice = Dictionary(grouping: taken, by: { id in fired[position[id]!].device })
        for (device, list) in byDevice {
            #expect(list == list.sorted { position[$0]! < position[$1]! }, "\(device) out of order")
        }
        if concurrency == 1 { #expect(taken == ids.filter { !refused.contains($0) }) }
        // Exactly the refused entries are dead letters.
        let letters = try store.deadLetters(sink: "picky", limit: 1000)
        #expect(Set(letters.map(\.entry.deliveryId)) == refused)
        #expect(letters.count == refused.count)
        // The cursor is stored past everything and the outbox let go of it all.
        #expect(outbox.extent.entries == 0)
        #expect(try store.sinkCursors()["picky"] == outbox.cursor(of: "picky"))
        #expect(JournalOutbox.position(of: outbox.cursor(of: "picky")) == UInt64((fired.count - 1) / 3))
    }
}
