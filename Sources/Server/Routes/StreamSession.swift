import Delivery
import Host
import Hummingbird
import JSON
import NIOCore
import ServiceLifecycle

/// One reader of `GET /v1/stream`: what the journal holds after its `Last-Event-ID`, then the live records offered
/// to its subscription, filtered, as events. When its buffer overflowed (it read slower than events came), it is
/// sent `event: lagged` and reads the records it missed from the journal, then goes on live: no event is skipped
/// and none sent twice, and the only cost of its slowness is its own journal reads. Should the journal no longer
/// hold them (a checkpoint covered them and every sink had them), it is sent `event: closed` with the reason, and
/// the stream ends.
struct StreamSession: Sendable {
    let host: EngineHost
    let subscription: StreamSubscription
    let filter: StreamFilter
    /// The event id (outbox sequence) to resume after, from `Last-Event-ID`.
    let resume: Int64?

    /// Records read from the journal per read: bounds the memory of a replay.
    static let replayEvents = 1024
    /// Bytes of events gathered before they are written.
    static let flushBytes = 1 << 16

    /// Where the events stand: every event of records before `next` was written, and in record `next`, those up to
    /// `index` (a resume within a record).
    struct Cursor {
        var next: UInt64
        /// The last notification written of record `next` (its positions were written before it); nil: none yet.
        var index: Int?
        var lastID: String?
    }

    func run(_ writer: inout any ResponseBodyWriter) async throws {
        let subscription = subscription, interval = filter.heartbeat
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                subscription.poke()
            }
        }
        defer { heartbeat.cancel() }
        var out = SSEWriter()
        out.retry(milliseconds: 2000)
        out.comment("stream open")
        try await flush(&out, &writer)
        var cursor = Cursor(next: subscription.liveFrom)
        if let resume, let position = JournalOutbox.position(of: resume) {
            cursor = Cursor(next: position, index: Int(resume - JournalOutbox.sequence(position: position, index: 0)), lastID: String(resume))
            // Records before `liveFrom` are not offered live: they are read from the journal once durable.
            try await host.log.waitDurable(through: subscription.liveFrom)
            guard try await replay(through: subscription.liveFrom, &cursor, &out, &writer) else { return }
        }
        try await withGracefulShutdownHandler {
            for await _ in subscription.wakeups {
                let taken = subscription.take()
                if taken.lagged {
                    var w = JSONWriter()
                    w.beginObject()
                    if let id = cursor.lastID { w.field("lastEventId", id) } else { w.key("lastEventId"); w.null() }
                    w.field("buffer", subscription.capacity)
                    w.field("action", "resuming from the journal")
                    w.endObject()
                    out.event("lagged", json: w.bytes)
                    guard try await replay(through: taken.offeredThrough, &cursor, &out, &writer) else { return }
                    continue
                }
                for r in taken.records where r.position >= cursor.next {
                    write(r, &cursor, &out)
                    if out.bytes.count >= Self.flushBytes { try await flush(&out, &writer) }
                }
                if taken.closed {
                    out.event("closed", json: #"{"reason":"the server is shutting down; reconnect with Last-Event-ID"}"#)
                    try await flush(&out, &writer)
                    return
                }
                if out.bytes.isEmpty { out.comment("heartbeat") }
                try await flush(&out, &writer)
            }
        } onGracefulShutdown: {
            subscription.close()
        }
    }

    /// Writes the records before `end` from the journal. False when the journal no longer holds them (the stream
    /// was told and ends).
    private func replay(through end: UInt64, _ cursor: inout Cursor, _ out: inout SSEWriter, _ writer: inout any ResponseBodyWriter) async throws -> Bool {
        while cursor.next < end {
            let read: (records: [StreamRecord], next: UInt64)
            do {
                read = try host.streamRecords(from: cursor.next, before: end, positions: filter.positions, limit: Self.replayEvents)
            } catch {
                var w = JSONWriter()
                w.beginObject()
                switch error {
                case .gone(let requested, let oldest):
                    w.field("reason", "the journal no longer holds the events from record \(requested) (it starts at \(oldest)); reconnect without Last-Event-ID")
                case .unreadable(let why):
                    w.field("reason", "the journal could not be read: \(why)")
                }
                w.endObject()
                out.event("closed", json: w.bytes)
                try await flush(&out, &writer)
                return false
            }
            for r in read.records { write(r, &cursor, &out) }
            cursor.next = max(cursor.next, read.next)
            cursor.index = nil
            try await flush(&out, &writer)
        }
        return true
    }

    /// The record's events this reader wants: its positions, then its notifications (ids: outbox sequences).
    private func write(_ r: StreamRecord, _ cursor: inout Cursor, _ out: inout SSEWriter) {
        let skip = r.position == cursor.next ? cursor.index : nil
        if skip == nil {
            for fix in r.fixes where filter.wants(fix) { out.event("position", json: SSEWriter.positionJSON(fix)) }
        }
        for (i, n) in r.notifications.enumerated() {
            if let skip, i <= skip { continue }
            guard filter.wants(n) else { continue }
            let id = String(JournalOutbox.sequence(position: r.position, index: i))
            cursor.lastID = id
            out.event("notification", id: id, json: n.json)
        }
        cursor.next = r.position + 1
        cursor.index = nil
    }

    private func flush(_ out: inout SSEWriter, _ writer: inout any ResponseBodyWriter) async throws {
        guard !out.bytes.isEmpty else { return }
        try await writer.write(ByteBuffer(bytes: out.bytes))
        host.stream.delivered(out.events)
        out.reset()
    }
}
