import Ingest
import Inputs
import NIOCore
import Testing
import TestSupport
import TriggerEngine

/// How `IngestReader` cuts a body into committed batches: a request body's chunks are coalesced (one commit for a
/// body of up to `maximumBatch` records), a stream's chunks are not (a stream may pause between lines).
@Suite struct IngestReaderTests {
    /// Records the size of each batch handed to the engine, and the lines its records were read from.
    final class Batches {
        var sizes: [Int] = []
        var lines: [Int] = []
    }

    /// `count` fix lines cut into chunks of `perChunk` lines.
    static func chunks(_ count: Int, perChunk: Int) -> AsyncStream<ByteBuffer> {
        let lines = (0..<count).map { fixLine("d\($0 % 7)", $0, inside: $0 % 2 == 0) + "\n" }
        return AsyncStream { continuation in
            for start in stride(from: 0, to: count, by: perChunk) {
                continuation.yield(ByteBuffer(string: lines[start..<min(count, start + perChunk)].joined()))
            }
            continuation.finish()
        }
    }

    static func read(_ body: AsyncStream<ByteBuffer>, coalesce: Bool) async throws -> (IngestSummary, [Int]) {
        let batches = Batches()
        var reader = IngestReader(decoder: NDJSONFixDecoder(source: "test"), limit: .max) { fixes, lines async throws in
            batches.sizes.append(fixes.count)
            batches.lines += lines
            // Each fix goes with its own line: the chunks' fixes carry their line (counted from 1) as their timestamp's offset.
            for (fix, line) in zip(fixes, lines) where fix.timestamp != Timestamp(seconds: 1_760_000_000 + Double(line - 1)) {
                Issue.record("the fix of \(fix.timestamp) was handed over with line \(line)")
            }
            return []
        }
        reader.coalesce = coalesce
        let summary = try await reader.read(body)
        #expect(batches.lines.count == batches.sizes.reduce(0, +))
        return (summary, batches.sizes)
    }

    @Test func aRequestBodyIsOneBatchUpToTheMaximum() async throws {
        let (summary, sizes) = try await Self.read(Self.chunks(500, perChunk: 10), coalesce: true)
        #expect(sizes == [500])
        #expect(summary.accepted == 500)
    }

    @Test func aLargeBodyIsCutIntoMaximumBatches() async throws {
        let max = IngestReader<NDJSONFixDecoder>.maximumBatch
        let (summary, sizes) = try await Self.read(Self.chunks(2 * max + 100, perChunk: 333), coalesce: true)
        #expect(sizes == [max, max, 100])
        #expect(summary.accepted == 2 * max + 100)
    }

    @Test func aStreamCommitsEveryChunk() async throws {
        let (_, sizes) = try await Self.read(Self.chunks(50, perChunk: 10), coalesce: false)
        #expect(sizes == [10, 10, 10, 10, 10])
    }

    @Test func aJSONArrayIsCutLikeNDJSON() async throws {
        let max = IngestReader<NDJSONFixDecoder>.maximumBatch
        let count = max + 5
        let body = "[" + (0..<count).map { fixLine("d", $0, inside: false) }.joined(separator: ",") + "]"
        let stream = AsyncStream<ByteBuffer> { continuation in
            continuation.yield(ByteBuffer(string: body))
            continuation.finish()
        }
        let (summary, sizes) = try await Self.read(stream, coalesce: true)
        #expect(sizes == [max, 5])
        #expect(summary.accepted == count)
    }
    /// Found by Tools/fuzz FuzzIngestFraming: an array element was re-serialised before decoding, and 1e999 became
    /// null, so the array form accepted a fix the NDJSON form rejects as not-a-number.
    @Test(arguments: [
        #"{"device":"d","timestamp":1760000000,"latitude":1e997,"longitude":2}"#,
        #"{"device":"d","timestamp":1760000000,"latitude":1,"longitude":2,"altitude":1e999}"#,
    ])
    func anArrayElementIsJudgedOnItsOwnBytesLikeAnNDJSONLine(line: String) async throws {
        func read(_ text: String) async throws -> IngestSummary {
            let stream = AsyncStream<ByteBuffer> { continuation in
                continuation.yield(ByteBuffer(string: text))
                continuation.finish()
            }
            return try await Self.read(stream, coalesce: true).0
        }
        let ndjson = try await read(line + "\n")
        let array = try await read("[\n  " + line.replacingOccurrences(of: ",", with: ",\n  ") + ",\n  " + fixLine("e", 1, inside: true) + "\n]")
        #expect(ndjson.accepted == 0 && ndjson.rejected == 1)
        #expect(array.accepted == 1 && array.rejected == 1)
        #expect(array.kinds == ndjson.kinds)
    }

    /// The NDJSON fix decoder numbers lines itself and takes whole chunks (`numbersLines`); every other decoder is
    /// fed lines the reader frames. Both must agree on every record's line and every error's line, field and
    /// reason, whatever the chunking: lines cut anywhere, CRLF, blank lines, bad lines, a last line without `\n`.
    @Test(arguments: [1, 2, 3, 7, 64, 1 << 20])
    func chunksThroughTheDecoderNumberLinesAsTheFramerDoes(chunkBytes: Int) async throws {
        /// The same decoder seen as one that needs whole lines.
        struct Framed: StreamingRecordDecoder {
            var inner = NDJSONFixDecoder(source: "test")
            mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
                inner.decode(chunk, onRecord: onRecord, onError: onError)
            }
            mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
                inner.finish(onRecord: onRecord, onError: onError)
            }
            var warnings: [IngestWarning] { inner.warnings }
        }
        var lines: [String] = []
        for k in 0..<40 {
            switch k % 8 {
            case 3: lines.append("")
            case 5: lines.append(#"{"device":"d\#(k)","timestamp":"not a time","latitude":1,"longitude":2}"#)
            case 6: lines.append("{not json")
            case 7: lines.append(fixLine("d\(k % 5)", k, inside: true) + "\r")
            default: lines.append(fixLine("d\(k % 5)", k, inside: k % 2 == 0))
            }
        }
        let body = Array((lines.joined(separator: "\n") + "\n" + fixLine("last", 99, inside: true)).utf8)
        func stream() -> AsyncStream<ByteBuffer> {
            AsyncStream { continuation in
                for start in stride(from: 0, to: body.count, by: chunkBytes) {
                    continuation.yield(ByteBuffer(bytes: body[start..<min(body.count, start + chunkBytes)]))
                }
                continuation.finish()
            }
        }
        func run<D: StreamingRecordDecoder>(_ decoder: D) async throws -> (IngestSummary, [Int]) where D.Record == LocationFix {
            let batches = Batches()
            var reader = IngestReader(decoder: decoder, limit: .max) { fixes, lines async throws in
                batches.lines += lines
                return []
            }
            reader.coalesce = true
            return (try await reader.read(stream()), batches.lines)
        }
        #expect(NDJSONFixDecoder.numbersLines && !Framed.numbersLines)
        let (numbered, numberedLines) = try await run(NDJSONFixDecoder(source: "test"))
        let (framed, framedLines) = try await run(Framed())
        #expect(numbered.accepted == 26 && numbered.rejected == 10)
        #expect(numberedLines == framedLines)
        #expect(numberedLines.last == 41)
        #expect(numbered.accepted == framed.accepted && numbered.rejected == framed.rejected)
        #expect(numbered.errors.map(\.line) == framed.errors.map(\.line))
        #expect(numbered.errors.map(\.line) == [6, 7, 14, 15, 22, 23, 30, 31, 38, 39])
        #expect(numbered.errors.map(\.field) == framed.errors.map(\.field))
        #expect(numbered.errors.map(\.reason) == framed.errors.map(\.reason))
    }
}
