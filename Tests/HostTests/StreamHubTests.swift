import EngineLog
@testable import Host
import Testing
import TriggerEngine

/// The event streams' hub on its own: a reader's buffer is bounded, overflowing it marks only that reader lagged
/// (with the position up to which it must read the journal), and the others keep every record.
@Suite struct StreamHubTests {
    static func record(_ position: UInt64, notifications: Int) -> StreamRecord {
        StreamRecord(position: position, notifications: (0..<notifications).map { i in
            RecordedNotification(deliveryId: "d\(position)-\(i)", identifier: "r", device: "a", firedAt: Timestamp(microseconds: 0), json: "{}")
        })
    }

    @Test func aFullBufferLagsOnlyItsReader() async throws {
        let hub = StreamHub(start: 10)
        let small = try #require(hub.subscribe(capacity: 3, positions: false))
        let large = try #require(hub.subscribe(capacity: 100, positions: false))
        #expect(small.liveFrom == 10 && large.liveFrom == 10)
        hub.publish([Self.record(10, notifications: 2)], through: 11)
        hub.publish([Self.record(11, notifications: 0), Self.record(12, notifications: 2)], through: 13)
        hub.publish([Self.record(13, notifications: 1)], through: 14)
        let lagged = small.take()
        #expect(lagged.lagged && lagged.records.isEmpty && lagged.offeredThrough == 14)
        let kept = large.take()
        #expect(!kept.lagged && kept.records.map(\.position) == [10, 12, 13] && kept.offeredThrough == 14)
        // After the take, the small reader is live again from 14 on.
        hub.publish([Self.record(14, notifications: 1)], through: 15)
        let again = small.take()
        #expect(!again.lagged && again.records.map(\.position) == [14])
        hub.unsubscribe(small)
        hub.unsubscribe(large)
        #expect(hub.readerCount == 0)
    }

    @Test func aReaderAfterAnAdmittedBatchTakesItFromTheJournal() throws {
        let hub = StreamHub(start: 0)
        // Nobody reads: the writer is told to queue nothing for the streams.
        #expect(hub.admit(through: 5) == StreamHub.Interest(notifications: false, positions: false))
        let reader = try #require(hub.subscribe(capacity: 10, positions: true))
        #expect(reader.liveFrom == 5)
        #expect(hub.admit(through: 6) == StreamHub.Interest(notifications: true, positions: true))
        hub.close()
        #expect(reader.take().closed && hub.subscribe(capacity: 1, positions: false) == nil)
    }
}
