import Foundation
import Ingest
import JSON
import TriggerEngine

/// `--rejections FILE`: every refused record, one JSON object per line, so none is only counted. A record the
/// decoder could not read is located by file, line (or byte offset) and field; a fix the engine refused (late,
/// duplicate, future, invalid values) by file, its ordinal among the file's fixes, device and timestamp, since a
/// decoded fix no longer knows its line.
final class RejectionLog {
    let path: String
    private let sink: OutputSink
    private var writer = JSONWriter(capacity: 256)
    private(set) var written = 0

    init(path: String) throws {
        self.path = path
        sink = try OutputSink(path: path)
    }

    func write(_ e: IngestError) {
        writer.bytes.removeAll(keepingCapacity: true)
        writer.beginObject()
        writer.field("source", e.source)
        if let line = e.line { writer.field("line", line) }
        if let offset = e.offset { writer.field("offset", offset) }
        if let field = e.field { writer.field("field", field) }
        writer.field("kind", e.kind)
        writer.field("reason", e.reason)
        writer.endObject()
        sink.writeLine(writer.bytes)
        written += 1
    }

    func write(_ fix: LocationFix, _ reason: FixRejection, source: String, ordinal: Int) {
        writer.bytes.removeAll(keepingCapacity: true)
        writer.beginObject()
        writer.field("source", source)
        writer.field("fix", ordinal)
        writer.field("device", fix.device)
        writer.key("timestamp"); writer.timestamp(fix.timestamp)
        writer.field("kind", reason.rawValue)
        writer.field("reason", reason.description)
        writer.endObject()
        sink.writeLine(writer.bytes)
        written += 1
    }

    func close() { sink.flush() }
}
