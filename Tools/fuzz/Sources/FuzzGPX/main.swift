import FuzzChecks
import FuzzDriver
import Ingest

/// libFuzzer entry: bytes as a GPX file through `TraceDecoder(format: .gpx)` (GPXDecoder over XMLTokenizer), as
/// `replay` reads one, whole and in two chunks.
func fuzzGPX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.gpx, input)
    // Each fix or point error is one point element closed or self-closed, so the element names must be there
    // (prefixes such as `gpx:` are dropped, so counting the bare names is an upper bound).
    let pointErrors = outcome.errors.filter { e in ["trkpt/", "rtept/", "wpt/"].contains { e.field?.hasPrefix($0) == true } }
    let points = occurrences(of: "trkpt", in: input) + occurrences(of: "rtept", in: input) + occurrences(of: "wpt", in: input)
    invariant(outcome.fixes.count + pointErrors.count <= points,
              "gpx: \(outcome.fixes.count) fixes and \(pointErrors.count) point errors from \(points) point names")
    // Malformed XML ends the document with one error; nothing after it is reported.
    if let k = outcome.errors.firstIndex(where: { $0.kind == IngestError.Kind.malformedXML }) {
        invariant(k == outcome.errors.count - 1, "gpx: errors after the malformed-XML error")
    }
    return 0
}

runFuzzer(fuzzGPX)
