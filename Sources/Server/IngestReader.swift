import JSON
import Hummingbird
import Ingest
import TriggerEngine

/// Reads a `POST /v1/fixes` or `/v1/sightings` body and hands it to the engine in batches, one body chunk at a
/// time: NDJSON is never buffered whole. A JSON array (first non-blank byte `[`) is collected (within the body
/// limit), and its elements are fed to the same NDJSON decoder one per line, so both forms get identical
/// validation; an error's `line` is then the 1-based element index.
///
/// Records are handed over in batches of at most `maximumBatch`; a batch is committed before it is answered, and
/// more body is read only after it committed. With `coalesce` (HTTP bodies) the records of several chunks
/// accumulate until `maximumBatch` of them are waiting or the body ends, so a body of up to `maximumBatch` records
/// is one commit: one transaction and one fsync instead of one per chunk. Without it (streams, which may pause
/// for any time between lines) every chunk read is flushed at once. A client that loses the connection mid-body
/// may resend it whole: the records already committed are then dropped as duplicates or late, and those still
/// waiting were never evaluated.
struct IngestReader<Decoder: StreamingRecordDecoder> {
    /// Records per commit: large enough that the fsync is shared by many devices, small enough that one batch holds
    /// the engine for a few milliseconds only.
    static var maximumBatch: Int { 4096 }

    var decoder: Decoder
    let limit: Int
    /// Accumulate records across chunks (a request body, which ends soon) instead of flushing each chunk.
    var coalesce = false
    /// Takes a batch: the records and, at the same index, the line each was read from. Two arrays rather than one
    /// of pairs: the host journals and evaluates the records as they are, with no copy (copying the pairs into
    /// the host's form was ~2 % of `serve`'s CPU under `Tools/bench/http_ingest.py`).
    let submit: (_ records: [Decoder.Record], _ lines: [Int]) async throws(Problem) -> [(line: Int, reason: FixRejection)]
    /// Sees every record read before any is submitted, and may refuse the whole body by throwing (a device
    /// credential naming another device: nothing of it is taken). When set, the body is held to its end (within
    /// `limit`) instead of being submitted as it is read.
    var screen: ((_ records: [Decoder.Record]) throws(Problem) -> Void)?
    /// Called for each rejected record as it is found (stream inputs log and count them at once; HTTP answers them).
    var onReject: ((IngestSummary.Entry, _ kind: String) -> Void)?

    /// What was read so far; complete once `read` returns, partial when it threw (a 413 mid-stream).
    private(set) var summary = IngestSummary()
    private var records: [Decoder.Record] = []
    private var lines: [Int] = []

    init(decoder: Decoder, limit: Int,
         submit: @escaping (_ records: [Decoder.Record], _ lines: [Int]) async throws(Problem) -> [(line: Int, reason: FixRejection)]) {
        self.decoder = decoder
        self.limit = limit
        self.submit = submit
    }

    /// Reads a request body, a TCP connection or standard input to its end.
    mutating func read<Body: AsyncSequence>(_ body: Body) async throws -> IngestSummary where Body.Element == ByteBuffer {
        var received = 0
        var isArray: Bool?
        var collected: [UInt8] = []
        var framer = LineFramer()
        for try await chunk in body {
            received += chunk.readableBytes
            if received > limit { throw Problem.tooLarge(limit: limit) }
            if isArray == nil, let first = chunk.readableBytesView.first(where: { !Self.isBlank($0) }) {
                isArray = first == UInt8(ascii: "[")
            }
            if isArray == true {
                collected.append(contentsOf: chunk.readableBytesView)
                continue
            }
            if Decoder.numbersLines {
                chunk.withUnsafeReadableBytes { decodeNumbered($0) }
            } else {
                chunk.withUnsafeReadableBytes { bytes in framer.feed(bytes) { line, bytes in decode(line: line, bytes) } }
            }
            if screen == nil { try await flush(all: !coalesce) }
        }
        if Decoder.numbersLines, isArray != true {
            decodeNumbered(nil)
        } else {
            if isArray == true {
                try await readArray(collected)
            } else {
                framer.finish { line, bytes in decode(line: line, bytes) }
            }
            var last: [Decoder.Record] = []
            var errors: [IngestError] = []
            decoder.finish(onRecord: { last.append($0) }, onError: { errors.append($0) })
            // What the decoder held to the end (an XML element, a CSV row without its newline) counts on the last line.
            for r in last {
                records.append(r)
                lines.append(framer.lineNumber)
            }
            for e in errors { reject(line: framer.lineNumber, field: e.field, reason: e.reason, kind: e.kind) }
        }
        try screen?(records)
        try await flush(all: true)
        summary.warnings = decoder.warnings.map(\.description)
        return summary
    }

    private mutating func readArray(_ bytes: [UInt8]) async throws {
        let json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch { throw Problem.malformedJSON(error) }
        guard json.arrayValue != nil else { throw Problem(.badRequest, title: "Malformed JSON", detail: "expected an array") }
        // Each element's own bytes go to the record decoder, as an NDJSON line would: re-serialising the parsed value
        // would lose what the decoder must judge (an out-of-range number such as 1e999 becomes null).
        for (k, line) in JSONArrayElements.lines(ofArray: bytes).enumerated() {
            line.withUnsafeBytes { decode(line: k + 1, $0) }
            if screen == nil { try await flush(all: false) }
        }
    }

    /// A chunk for a decoder that splits and numbers lines itself (`StreamingRecordDecoder.numbersLines`); nil
    /// finishes the input. One call per chunk: the records and lines are moved out once so the decoder can append
    /// to them directly.
    private mutating func decodeNumbered(_ bytes: UnsafeRawBufferPointer?) {
        var taken = records, takenLines = lines
        records = []
        lines = []
        var errors: [IngestError] = []
        if let bytes {
            decoder.decodeNumbered(bytes, onRecord: { taken.append($0); takenLines.append($1) }, onError: { errors.append($0) })
        } else {
            decoder.finishNumbered(onRecord: { taken.append($0); takenLines.append($1) }, onError: { errors.append($0) })
        }
        records = taken
        lines = takenLines
        for e in errors { reject(line: e.line ?? 0, field: e.field, reason: e.reason, kind: e.kind) }
    }

    private mutating func decode(line: Int, _ bytes: UnsafeRawBufferPointer) {
        // The batch is moved out and back so the decoder can append to it directly (no array per line).
        var taken = records
        records = []
        var errors: [IngestError] = []
        decoder.decode(bytes, onRecord: { taken.append($0) }, onError: { errors.append($0) })
        records = taken
        while lines.count < records.count { lines.append(line) }
        for e in errors { reject(line: line, field: e.field, reason: e.reason, kind: e.kind) }
    }

    /// Submits the waiting records in batches of `maximumBatch`; the remainder too when `all`.
    private mutating func flush(all: Bool) async throws {
        while records.count >= Self.maximumBatch || (all && !records.isEmpty) {
            let count = min(records.count, Self.maximumBatch)
            let current: [Decoder.Record], currentLines: [Int]
            if count == records.count {
                (current, records) = (records, [])
                (currentLines, lines) = (lines, [])
            } else {
                current = Array(records[..<count])
                currentLines = Array(lines[..<count])
                records.removeFirst(count)
                lines.removeFirst(count)
            }
            let rejected = try await submit(current, currentLines)
            summary.accepted += current.count - rejected.count
            summary.evaluated += current.count
            for r in rejected {
                if r.reason == .duplicate { summary.duplicates += 1 }
                reject(line: r.line, field: nil, reason: r.reason.description, kind: r.reason.rawValue)
            }
        }
    }

    private mutating func reject(line: Int, field: String?, reason: String, kind: String) {
        summary.reject(line: line, field: field, reason: reason, kind: kind)
        onReject?(IngestSummary.Entry(line: line, field: field, reason: reason), kind)
    }

    static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}

/// What an ingest request answers: `{accepted, rejected, errors: [{line, field, reason}]}`.
struct IngestSummary: Sendable {
    struct Entry: Sendable {
        var line: Int
        var field: String?
        var reason: String
    }
    /// At most this many errors are listed; `rejected` still counts them all.
    static let errorListLimit = 1000
    var accepted = 0
    var rejected = 0
    /// Records that decoded and reached the engine, taken or refused by it (late, duplicate, future…).
    var evaluated = 0
    /// Of those, the ones identical to a fix already taken: an app's resend, acknowledged and changing nothing.
    var duplicates = 0
    var errors: [Entry] = []
    /// The decoder's warnings about the body as a whole.
    var warnings: [String] = []
    /// Rejections by kind, for metrics.
    var kinds: [String: Int] = [:]

    mutating func reject(line: Int, field: String?, reason: String, kind: String) {
        rejected += 1
        kinds[kind, default: 0] += 1
        if errors.count < Self.errorListLimit { errors.append(Entry(line: line, field: field, reason: reason)) }
    }

    /// No record of the body could even be read (or there was none): sending it again can never work, a 422.
    /// A body whose records the engine refused (a resend of records accepted before: duplicates or late) is
    /// answered 2xx with each refusal listed: apps resend until they get a 2xx, and a 4xx for a message that was
    /// accepted the first time (its 200 lost with the connection) would leave it to be resent for ever.
    var readNothing: Bool { evaluated == 0 }

    /// The 422 problem for a body that yielded nothing: the summary's fields beside the problem's.
    var problemJSON: [UInt8] {
        var w = JSONWriter(capacity: 256 + errors.count * 64)
        w.beginObject()
        w.field("type", "about:blank")
        w.field("title", "Nothing accepted")
        w.field("status", 422)
        if rejected == 0 {
            w.field("detail", "the body holds no record")
        } else {
            let first = errors.min { $0.line < $1.line }
            w.field("detail", "all \(rejected) records were rejected" + (first.map { "; line \($0.line): \($0.reason)" } ?? ""))
        }
        writeFields(&w)
        w.endObject()
        return w.bytes
    }

    var json: [UInt8] {
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
