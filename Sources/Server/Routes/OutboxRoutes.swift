import JSON
import Delivery
import Host
import Hummingbird
import Storage
import TriggerEngine

/// `GET /v1/outbox` (depth per sink, oldest age, bounds, notifications awaiting their journal fsync, dead letters) and
/// `POST /v1/outbox/dead-letters/{id}/replay` (deliver a dead letter to its sink once more).
struct OutboxRoutes: Sendable {
    let store: any StateStore
    let dispatcher: OutboxDispatcher
    let signal: OutboxSignal
    /// Notifications journaled and not yet durable: they enter the outbox (and every sink's depth) once fsync'd.
    let feeder: OutboxFeeder

    static let defaultDeadLetters = 100
    static let maximumDeadLetters = 1000

    /// - Parameters:
    ///   - read: where the status goes; `admin`, where the replay goes.
    func register(read: RouterGroup<APIContext>, admin: RouterGroup<APIContext>) {
        read.get("outbox") { request, _ in try status(request) }
        admin.post("outbox/dead-letters/:id/replay") { _, context in
            let text = try context.parameters.require("id")
            guard let id = Int64(text) else {
                throw Problem(.badRequest, title: "Bad dead letter id", detail: "'\(text)' is not a dead letter id (an integer)")
            }
            return try replay(id)
        }
    }

    private func status(_ request: Request) throws -> Response {
        // A value that is not an integer is refused, never read as the default.
        let given = request.uri.queryParameters.get("deadLetters").map { String($0) }
        let limit = try given.map { t throws(Problem) -> Int in
            guard let n = Int(t) else {
                throw Problem(.badRequest, title: "Bad limit", detail: "deadLetters must be an integer, got '\(t)'")
            }
            return n
        } ?? Self.defaultDeadLetters
        guard (0...Self.maximumDeadLetters).contains(limit) else {
            throw Problem(.badRequest, title: "Bad limit", detail: "deadLetters must be 0…\(Self.maximumDeadLetters)")
        }
        let pressure = dispatcher.pressure
        let names = dispatcher.sinkNames
        let outbox = dispatcher.outbox
        let dead = try names.map { try store.deadLetterCount(sink: $0) }
        let letters = try store.deadLetters(sink: nil, limit: limit)
        let extent = outbox.extent
        let sinks = zip(names, dead).map { name, dead in
            (name: name, cursor: outbox.cursor(of: name), depth: outbox.depth(of: name), oldest: outbox.oldestUnsettled(of: name), dead: dead)
        }
        let now = Timestamp.wallClock()
        func age(_ t: Timestamp?, _ w: inout JSONWriter) {
            if let t { w.number(Double(max(0, now.microseconds - t.microseconds)) / 1e6) } else { w.null() }
        }
        var w = JSONWriter()
        w.beginObject()
        w.field("entries", extent.entries)
        w.field("awaitingDurability", feeder.backlog)
        w.key("oldestAgeSeconds"); age(extent.oldest, &w)
        w.field("level", pressure.reading.level.rawValue)
        w.field("fill", pressure.reading.fill)
        w.key("bounds"); w.beginObject()
        w.field("maximumEntries", pressure.maximumEntries)
        w.field("maximumAgeSeconds", Int(pressure.maximumAge.components.seconds))
        w.endObject()
        w.key("sinks"); w.beginArray()
        for s in sinks {
            w.beginObject()
            w.field("name", s.name)
            // Journal positions pass 2^53: as strings, so JavaScript and jq keep every digit.
            w.field("cursor", String(s.cursor))
            w.field("depth", s.depth)
            w.key("oldestAgeSeconds"); age(s.oldest.map { $0.enqueuedAt ?? now }, &w)
            w.field("deadLetters", s.dead)
            w.endObject()
        }
        w.endArray()
        w.key("deadLetters")
        // The letters' notifications are our own compact JSON: spliced in as they are.
        var text = String(decoding: w.bytes, as: UTF8.self) + "["
        for (k, l) in letters.enumerated() {
            var lw = JSONWriter()
            lw.beginObject()
            lw.field("id", Int(l.id))
            lw.field("sink", l.sink)
            lw.field("sequence", String(l.entry.sequence))
            lw.field("deliveryId", l.entry.deliveryId)
            lw.field("device", l.entry.device)
            lw.key("status"); if let s = l.status { lw.number(s) } else { lw.null() }
            lw.field("response", l.response)
            lw.key("failedAt"); lw.timestamp(l.failedAt)
            lw.field("attempts", l.attempts)
            lw.field("replayRequested", l.replayRequestedAt != nil)
            lw.endObject()
            text += (k > 0 ? "," : "") + String(decoding: lw.bytes.dropLast(), as: UTF8.self) + #","notification":"# + l.entry.json + "}"
        }
        return APIRoutes.json(text + "]}")
    }

    private func replay(_ id: Int64) throws -> Response {
        guard let letter = try store.deadLetter(id: id) else {
            throw Problem(.notFound, title: "Unknown dead letter", detail: "no dead letter with id \(id)")
        }
        guard dispatcher.sinkNames.contains(letter.sink) else {
            throw Problem(.conflict, title: "Sink not configured",
                          detail: "dead letter \(id) belongs to sink '\(letter.sink)', which this server does not deliver to")
        }
        _ = try store.requestReplay(ofDeadLetter: id, at: .wallClock())
        signal.requestReplays()
        var w = JSONWriter()
        w.beginObject()
        w.field("id", Int(id))
        w.field("sink", letter.sink)
        w.field("replay", "requested")
        w.endObject()
        return APIRoutes.json(w.bytes, status: .accepted)
    }
}
