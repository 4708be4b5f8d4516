import Foundation
import Logging
import Sinks
import Storage
import Synchronization
import Testing
import TestSupport

@testable import Delivery

/// Many devices with a notification or two each (a steady stream): a lane tops its batch up with the entries of idle
/// lanes, so requests carry batches, while a device's entries stay in order and never ride in two calls at once.
/// Runs the real dispatcher over a real SQLite file and a journal outbox of real notifications.
@Suite struct LaneBatchingTests {
    /// Records every call; slow enough that lanes overlap; fails retryably once at each entry in `flaky` (nothing of
    /// that call taken). Flags a device whose entries are in two calls at once.
    final class RecordingSink: NotificationSink {
        let name = "picky"
        let flaky: Mutex<Set<String>>
        let calls = Mutex<[[OutboxEntry]]>([])
        let inFlight = Mutex<[String: Int]>([:])
        let overlaps = Mutex<[String]>([])

        init(flaky: Set<String> = []) { self.flaky = Mutex(flaky) }

        func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
            let devices = Set(entries.map(\.device))
            inFlight.withLock { busy in
                for d in devices {
                    if busy[d, default: 0] > 0 { overlaps.withLock { $0.append(d) } }
                    busy[d, default: 0] += 1
                }
            }
            try? await Task.sleep(for: .milliseconds(3))
            inFlight.withLock { busy in for d in devices { busy[d, default: 0] -= 1 } }
            if let hit = entries.first(where: { e in flaky.withLock { $0.remove(e.deliveryId) != nil } }) {
                throw .retryable(reason: "busy at \(hit.deliveryId)", after: .milliseconds(5))
            }
            calls.withLock { $0.append(entries) }
        }
    }

    static func deliverAll(_ sink: RecordingSink, outbox: JournalOutbox, store: MemoryStore, concurrency: Int, batch: Int) async throws {
        var logger = Logger(label: "lanes")
        logger.logLevel = .critical
        let dispatcher = OutboxDispatcher(
            store: store, outbox: outbox, sinks: [ConfiguredSink(sink: sink, concurrency: concurrency, batchSize: batch)], signal: OutboxSignal(),
            configuration: DeliveryConfiguration(retry: RetryPolicy(initial: .milliseconds(5), maximum: .milliseconds(20))),
            logger: logger, refreshInterval: .milliseconds(20))
        let run = Task { try await dispatcher.run() }
        // Alone this takes well under a second; beside the whole suite on two cores, over 60 s was once seen (a
        // CI failure). The wait is bounded by the work: the assertions below say whether it was done right.
        _ = await eventually(every: .milliseconds(10)) { outbox.depth(of: "picky") == 0 }
        run.cancel()
        _ = await run.result
    }

    @Test func aSteadyStreamOverManyDevicesGoesOutInBatchesInOrderPerDevice() async throws {
        // 100 devices, 2 notifications each: per-device lanes alone would make at least 100 calls of 1–2 entries.
        let (store, outbox, fired) = try PartialDeliveryTests.outbox(count: 200, devices: 100)
        #expect(Set(fired.map(\.device)).count == 100)
        let sink = RecordingSink()
        try await Self.deliverAll(sink, outbox: outbox, store: store, concurrency: 4, batch: 50)

        let calls = sink.calls.withLock { $0 }
        let taken = calls.flatMap { $0 }.map(\.deliveryId)
        #expect(taken.count == fired.count, "each entry exactly once")
        #expect(Set(taken) == Set(fired.map(\.deliveryId)))
        #expect(calls.allSatisfy { $0.count <= 50 })
        #expect(calls.count <= 12, "\(calls.count) calls for 200 entries in batches of 50")
        #expect(calls.contains { Set($0.map(\.device)).count > 1 }, "no call carried more than one device")
        #expect(sink.overlaps.withLock { $0 }.isEmpty, "a device's entries were in two calls at once")
        let position = Dictionary(uniqueKeysWithValues: fired.enumerated().map { ($1.deliveryId, $0) })
        for (device, list) in Dictionary(grouping: taken, by: { fired[position[$0]!].device }) {
            #expect(list == list.sorted { position[$0]! < position[$1]! }, "\(device) out of order")
        }
        #expect(outbox.extent.entries == 0)
    }

    @Test func aFailedSharedBatchIsRetriedForEveryDeviceInItAndStaysInOrder() async throws {
        let (store, outbox, fired) = try PartialDeliveryTests.outbox(count: 300, devices: 60)
        let ids = fired.map(\.deliveryId)
        let sink = RecordingSink(flaky: Set(stride(from: 5, to: ids.count, by: 17).map { ids[$0] }))
        try await Self.deliverAll(sink, outbox: outbox, store: store, concurrency: 3, batch: 20)

        let taken = sink.calls.withLock { $0 }.flatMap { $0 }.map(\.deliveryId)
        #expect(taken.count == ids.count, "each entry exactly once")
        #expect(Set(taken) == Set(ids))
        #expect(sink.flaky.withLock { $0 }.isEmpty, "every planned failure happened")
        #expect(sink.overlaps.withLock { $0 }.isEmpty, "a device's entries were in two calls at once")
        let position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        for (device, list) in Dictionary(grouping: taken, by: { fired[position[$0]!].device }) {
            #expect(list == list.sorted { position[$0]! < position[$1]! }, "\(device) out of order")
        }
        #expect(outbox.extent.entries == 0)
        #expect(try store.sinkCursors()["picky"] == outbox.cursor(of: "picky"))
    }
}
