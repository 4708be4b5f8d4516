import JSON
import NIOCore
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
public struct IngestReader<Decoder: StreamingRecordDecoder> {
    /// Records per commit: large enough that the fsync is shared by many devices, small enough that one batch holds
    /// the engine for a few milliseconds only.
    public static var maximumBatch: Int { 4096 }

    public var decoder: Decoder
    public let limit: Int
    /// Accumulate records across chunks (a request body, which ends soon) instead of flushing each chunk.
    public var coalesce = false
    /// Takes a batch: the records and, at the same index, the line each was read from. Two arrays rather than one
    /// of pairs: the host journals and evaluates the records as they are, with no copy (copying the pairs into
    /// the host's form was ~2 % of `serve`'s CPU under `Tools/bench/http_ingest.py`).
    /// What it throws ends the read and is rethrown by `read` as it is (HTTP routes throw their answer).
    let submit: (_ records: [Decoder.Record], _ lines: [Int]) async throws -> [(line: Int, reason: FixRejection)]
    /// Sees every record read before any is submitted, and may refuse the whole body by throwing (a device
    /// credential naming another device: nothing of it is taken). When set, the body is held to its end (within
    /// `limit`) instead of being submitted as it is read. What it throws is rethrown by `read` as it is.
    public var screen: ((_ records: [Decoder.Record]) throws -> Void)?
    /// Sees the first body chunk that is not blank before anything is decoded, and may refuse the body by throwing
    /// (an HTTP route checking it against its Content-Type, or for binary content). Rethrown by `read` as it is.
    public var inspect: ((UnsafeRawBufferPointer) throws -> Void)?
    /// Called for each rejected record as it is found (stream inputs log and count them at once; HTTP answers them).
    public var onReject: ((IngestSummary.Entry, _ kind: String) -> Void)?

    /// What was read so far; complete once `read` returns, partial when it threw (a 413 mid-stream).
    public private(set) var summary = IngestSummary()
    private var records: [Decoder.Record] = []
    private var lines: [Int] = []

    public init(decoder: Decoder, limit: Int,
                submit: @escaping (_ records: [Decoder.Record], _ lines: [Int]) async throws -> [(line: Int, reason: FixRejection)]) {
        self.decoder = decoder
        self.limit = limit
        self.submit = submit
    }

    /// Reads a request body, a TCP connection or standard input to its end.
    public mutating func read<Body: AsyncSequence>(_ body: Body) async throws -> IngestSummary where Body.Element == ByteBuffer {
        var received = 0
        var isArray: Bool?
        var collected: [UInt8] = []
        var framer = LineSplitter(keepingNewlines: true)
        for try await chunk in body {
            received += chunk.readableBytes
            if received > limit { throw IngestReadError.tooLarge(limit: limit) }
            if isArray == nil, let first = chunk.readableBytesView.first(where: { !Self.isBlank($0) }) {
                if let inspect { try chunk.withUnsafeReadableBytes { try inspect($0) } }
                isArray = first == UInt8(ascii: "[")
            }
            if isArray == true {
                collected.append(contentsOf: chunk.readableBytesView)
                continue
            }
            if Decoder.numbersLines {
                chunk.withUnsafeReadableBytes { decodeNumbered($0) }
            } else {
                chunk.withUnsafeReadableBytes { bytes in framer.feed(bytes) { decode(line: $0.number, $0.bytes) } }
            }
            if screen == nil { try await flush(all: !coalesce) }
        }
        if Decoder.numbersLines, isArray != true {
            decodeNumbered(nil)
        } else {
            if isArray == true {
                try await readArray(collected)
            } else {
                framer.finish { decode(line: $0.number, $0.bytes) }
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
        do { json = try JSONParser.parse(bytes) } catch { throw IngestReadError.malformedJSON(error) }
        guard json.arrayValue != nil else { throw IngestReadError.notAnArray }
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

    public static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}
