import JSON
import TriggerEngine

/// Server-Sent Events as bytes (the WHATWG `text/event-stream` format): each event's fields, then a blank line.
/// Data is always one line of compact JSON, so no event needs several `data:` lines.
struct SSEWriter {
    var bytes: [UInt8] = []
    /// Events written since the last `reset`.
    var events = 0

    init() { bytes.reserveCapacity(1 << 16) }

    mutating func event(_ name: StaticString, id: String? = nil, json: String) {
        if let id { append("id: "); append(id); append("\n") }
        append("event: "); append(name); append("\ndata: "); append(json); append("\n\n")
        events += 1
    }

    mutating func event(_ name: StaticString, id: String? = nil, json: [UInt8]) {
        event(name, id: id, json: String(decoding: json, as: UTF8.self))
    }

    /// A comment line: ignored by clients, keeps proxies from closing an idle stream.
    mutating func comment(_ text: StaticString) { append(": "); append(text); append("\n\n") }

    /// How long a browser waits before it reconnects after the stream ends.
    mutating func retry(milliseconds: Int) { append("retry: \(milliseconds)\n\n") }

    /// A fix as a `position` event's data.
    static func positionJSON(_ fix: LocationFix) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("device", fix.device)
        w.key("timestamp"); w.timestamp(fix.timestamp)
        w.field("latitude", fix.latitude)
        w.field("longitude", fix.longitude)
        if let a = fix.horizontalAccuracy { w.field("horizontalAccuracy", a) }
        w.endObject()
        return w.bytes
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        events = 0
    }

    private mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
}
