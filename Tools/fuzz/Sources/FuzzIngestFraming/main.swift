import JSON
import FuzzChecks
import FuzzDriver
import Ingest
import TriggerEngine

/// libFuzzer entry: bytes as a `POST /v1/fixes` and a `POST /v1/sightings` body, framed as the server frames them
/// (see IngestBody), in one chunk and in two.
func fuzzIngestFraming(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    checkBody(input, { NDJSONFixDecoder(source: "http", defaultDevice: nil) }, "fixes")
    checkBody(input, { NDJSONSightingDecoder(source: "http", defaultDevice: nil) }, "sightings")
    return 0
}

func checkBody<D: StreamingRecordDecoder>(_ input: [UInt8], _ make: () -> D, _ name: String) where D.Record: Equatable {
    var once = IngestBody(make())
    let whole = once.read([input[...]])
    let cut = splitPoint(input)
    var twice = IngestBody(make())
    let split = twice.read([input[..<cut], input[cut...]])
    invariant(whole.malformedArray == split.malformedArray && same(whole.records, split.records)
                && same(whole.rejects, split.rejects),
              "\(name): a body read in two chunks (cut at \(cut)) differs from one chunk")
    guard !whole.malformedArray else { return }
    // Every record and rejection names a line of the body (an element of an array), each line at most one outcome.
    let lines = whole.records.map(\.line) + whole.rejects.map(\.line)
    invariant(Set(lines).count == lines.count && lines.allSatisfy { $0 >= 1 },
              "\(name): line numbers \(lines.sorted()) repeat or start below 1")
    let isArray = input.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) == UInt8(ascii: "[")
    if !isArray { checkArrayFormAgrees(input, whole, make, name) }
}

/// IngestReader promises a JSON array gets "identical validation" to the same records as NDJSON. When every
/// non-blank line of an NDJSON body is a JSON value, the array of those values must give, element by element, what
/// the lines gave: the same record, or a rejection of the same kind.
func checkArrayFormAgrees<D: StreamingRecordDecoder>(
    _ input: [UInt8], _ ndjson: IngestBody<D>.Outcome, _ make: () -> D, _ name: String
) where D.Record: Equatable {
    var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
    var number = 0
    for line in input.split(separator: 10, omittingEmptySubsequences: false) {
        number += 1
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
        lines.append((number, line))
    }
    // A body that ends with `\n` splits into one more (empty, blank) piece; the line splitter numbers only real lines.
    guard !lines.isEmpty, lines.allSatisfy({ (try? JSONParser.parse(Array($0.bytes))) != nil }) else { return }
    var array: [UInt8] = [UInt8(ascii: "[")]
    for (k, line) in lines.enumerated() {
        if k > 0 { array.append(UInt8(ascii: ",")) }
        array.append(contentsOf: line.bytes)
    }
    array.append(UInt8(ascii: "]"))
    var reader = IngestBody(make())
    let asArray = reader.read([array[...]])
    guard !asArray.malformedArray else { return }  // e.g. nesting one level too deep once wrapped
    for (k, line) in lines.enumerated() {
        let a = ndjson.records.filter { $0.line == line.number }.map(\.record)
        let b = asArray.records.filter { $0.line == k + 1 }.map(\.record)
        let ra = ndjson.rejects.filter { $0.line == line.number }.map(\.kind)
        let rb = asArray.rejects.filter { $0.line == k + 1 }.map(\.kind)
        invariant(a == b && ra == rb,
                  "\(name): line \(line.number) as NDJSON gave \(a) \(ra), as array element \(k + 1) gave \(b) \(rb): "
                    + String(decoding: line.bytes.prefix(300), as: UTF8.self))
    }
}

func same<R: Equatable>(_ a: [(line: Int, record: R)], _ b: [(line: Int, record: R)]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.line == $1.line && $0.record == $1.record }
}

func same(_ a: [(line: Int, kind: String)], _ b: [(line: Int, kind: String)]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.line == $1.line && $0.kind == $1.kind }
}

runFuzzer(fuzzIngestFraming)
