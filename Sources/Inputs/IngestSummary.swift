import JSON

/// What an ingest request answers: `{accepted, rejected, errors: [{line, field, reason}]}`.
public struct IngestSummary: Sendable {
    public struct Entry: Sendable {
        public var line: Int
        public var field: String?
        public var reason: String
    }
    /// At most this many errors are listed; `rejected` still counts them all.
    public static let errorListLimit = 1000
    public init() {}

    public var accepted = 0
    public var rejected = 0
    /// Records that decoded and reached the engine, taken or refused by it (late, duplicate, future…).
    public var evaluated = 0
    /// Of those, the ones identical to a fix already taken: an app's resend, acknowledged and changing nothing.
    public var duplicates = 0
    public var errors: [Entry] = []
    /// The decoder's warnings about the body as a whole.
    public var warnings: [String] = []
    /// Rejections by kind, for metrics.
    public var kinds: [String: Int] = [:]

    public mutating func reject(line: Int, field: String?, reason: String, kind: String) {
        rejected += 1
        kinds[kind, default: 0] += 1
        if errors.count < Self.errorListLimit { errors.append(Entry(line: line, field: field, reason: reason)) }
    }

    /// No record of the body could even be read (or there was none): sending it again can never work, a 422.
    /// A body whose records the engine refused (a resend of records accepted before: duplicates or late) is
    /// answered 2xx with each refusal listed: apps resend until they get a 2xx, and a 4xx for a message that was
    /// accepted the first time (its 200 lost with the connection) would leave it to be resent for ever.
    public var readNothing: Bool { evaluated == 0 }

    /// The 422 problem for a body that yielded nothing: the summary's fields beside the problem's.
    public var problemJSON: [UInt8] {
        var w = JSONWriter(capacity: 256 + errors.count * 64)
        w.beginObject()
        w.field("type", "about:blank")
        w.field("title", "Nothing accepted")
        w.field("status", 422)
        if rejected == 0 {
            w.field("detail", "the body holds no record")
        } else {
            let first = errors.min { $0.line < $1.line }
            w.field("detail", (rejected == 1 ? "the one record was rejected" : "all \(rejected) records were rejected") + (first.map { "; line \($0.line): \($0.reason)" } ?? ""))
        }
        writeFields(&w)
        w.endObject()
        return w.bytes
    }

    public var json: [UInt8] {
        var w = JSONWriter(capacity: 128 + errors.count * 64)
        w.beginObject()
        writeFields(&w)
        w.endObject()
        return w.bytes
    }

    private func writeFields(_ w: inout JSONWriter) {
        w.field("accepted", accepted)
        w.field("rejected", rejected)
        if duplicates > 0 { w.field("duplicates", duplicates) }
        w.key("errors")
        w.beginArray()
        for e in errors.sorted(by: { $0.line < $1.line }) {
            w.beginObject()
            w.field("line", e.line)
            if let f = e.field { w.field("field", f) } else { w.key("field"); w.null() }
            w.field("reason", e.reason)
            w.endObject()
        }
        w.endArray()
        if !warnings.isEmpty {
            w.key("warnings")
            w.beginArray()
            for text in warnings { w.string(text) }
            w.endArray()
        }
    }
}
