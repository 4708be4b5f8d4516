import EngineLog
import Journal
import TriggerEngine

/// Why records cannot be read again for an event stream.
public enum StreamReplayError: Error, Sendable {
    /// The journal no longer holds the records from `requested` (a checkpoint covered them and every sink had
    /// them); it starts at `oldest`.
    case gone(requested: UInt64, oldest: UInt64)
    /// The journal could not be read.
    case unreadable(String)
}

extension EngineHost {
    /// The event streams' hub (`GET /v1/stream`).
    public nonisolated var stream: StreamHub { feeder.stream }

    /// Up to about `limit` events' worth of durable records in `from..<end` with notifications (and with fixes, when
    /// `positions`), read from the journal, and the position to read on from. Blocks on the journal's files: a
    /// reader's resume and lag, never the engine.
    public nonisolated func streamRecords(from: UInt64, before end: UInt64, positions: Bool, limit: Int) throws(StreamReplayError)
        -> (records: [StreamRecord], next: UInt64) {
        guard from < end else { return ([], from) }
        let oldest = log.firstPosition
        guard from >= oldest else { throw .gone(requested: from, oldest: oldest) }
        struct Enough: Error {}
        var records: [StreamRecord] = [], events = 0, next = from
        do {
            try log.forEachRecord(from: from) { position, record in
                guard position < end, events < limit else { throw Enough() }
                next = position + 1
                let decoded = try HostRecord(record, position: position)
                var fixes: [LocationFix] = []
                if positions, case .fixes(let f) = decoded.input { fixes = f }
                guard !decoded.notifications.isEmpty || !fixes.isEmpty else { return }
                records.append(StreamRecord(position: position, notifications: decoded.notifications, fixes: fixes))
                events += decoded.notifications.count + fixes.count
            }
            // The durable end was reached before `end`: cannot be, `end` was published once durable.
            if events < limit { next = max(next, end) }
        } catch is Enough {
        } catch {
            // Segments dropped while they were read: as if the records were gone when asked for.
            let now = log.firstPosition
            if now > next { throw .gone(requested: next, oldest: now) }
            throw .unreadable("\(error)")
        }
        stream.replayed(records.count)
        return (records, next)
    }
}
