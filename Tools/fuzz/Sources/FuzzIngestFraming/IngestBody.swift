import JSON
import Ingest
import TriggerEngine

/// The framing of `IngestReader.read` (Sources/Inputs/IngestReader.swift) without its batching and async commit:
/// the first non-blank byte decides array or NDJSON; NDJSON goes through Ingest's `LineSplitter` keeping newlines (as the reader does)
/// a line at a time into one decoder; an array is parsed whole and each element's own bytes (`JSONArrayElements`,
/// shared with the reader) fed as its own line. Linking the Inputs module itself would pull the host, NIO, GRDB and
/// libmosquitto into the sanitizer build, so this control flow is mirrored; keep them in step.
struct IngestBody<Decoder: StreamingRecordDecoder> {
    struct Outcome {
        var records: [(line: Int, record: Decoder.Record)] = []
        var rejects: [(line: Int, kind: String)] = []
        /// The array did not parse: the server answers 400 for the whole body.
        var malformedArray = false
    }

    var decoder: Decoder
    private var outcome = Outcome()

    init(_ decoder: Decoder) { self.decoder = decoder }

    mutating func read(_ chunks: [ArraySlice<UInt8>]) -> Outcome {
        var isArray: Bool?
        var collected: [UInt8] = []
        var framer = LineSplitter(keepingNewlines: true)
        for chunk in chunks {
            if isArray == nil, let first = chunk.first(where: { !(($0 == 0x20) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) {
                isArray = first == UInt8(ascii: "[")
            }
            if isArray == true {
                collected.append(contentsOf: chunk)
                continue
            }
            chunk.withUnsafeBytes { bytes in framer.feed(bytes) { decode(line: $0.number, $0.bytes) } }
        }
        if isArray == true {
            readArray(collected)
        } else {
            framer.finish { decode(line: $0.number, $0.bytes) }
        }
        decoder.finish(onRecord: { _ in }, onError: { _ in })
        return outcome
    }

    private mutating func readArray(_ bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes), json.arrayValue != nil else {
            outcome.malformedArray = true
            return
        }
        for (k, line) in JSONArrayElements.lines(ofArray: bytes).enumerated() { line.withUnsafeBytes { decode(line: k + 1, $0) } }
    }

    private mutating func decode(line: Int, _ bytes: UnsafeRawBufferPointer) {
        var records: [Decoder.Record] = []
        var errors: [String] = []
        decoder.decode(bytes, onRecord: { records.append($0) }, onError: { errors.append($0.kind) })
        for r in records { outcome.records.append((line, r)) }
        for e in errors { outcome.rejects.append((line, e)) }
    }
}
