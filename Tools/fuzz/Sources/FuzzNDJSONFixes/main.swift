import JSON
import FuzzChecks
import FuzzDriver
import Ingest
import TriggerEngine

/// libFuzzer entry: bytes as NDJSON fixes through `TraceDecoder(format: .ndjson)` (replay, the TCP/stdin inputs),
/// whole and in two chunks; then line by line against the full parser.
func fuzzNDJSONFixes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.ndjson, input)
    let lines = nonBlankLines(input)
    // One fix or one error per non-blank line, never both, never none.
    invariant(outcome.fixes.count + outcome.errors.count == lines.count,
              "ndjson: \(outcome.fixes.count) fixes and \(outcome.errors.count) errors from \(lines.count) lines")
    for line in lines { checkFastPathAgreesWithParser(Array(line)) }
    // Each line alone as the stream had it, its carriage return included: the decoder drops one before a newline
    // and at the end alike, so a line ending in several is read the same both ways (dropping one here first made
    // the lone line one byte shorter than the stream's, and an error at its end one byte earlier).
    checkLayoutAgreesWithLinesAlone(outcome, nonBlankLines(input, keepingCarriageReturn: true))
    return 0
}

/// In a stream, a line with the layout of the line before it is read through that layout (`FixLayout`); read alone,
/// by a fresh decoder, it is scanned key by key. Each line must give the same fix, or the same error, either way.
func checkLayoutAgreesWithLinesAlone(_ stream: TraceOutcome, _ lines: [ArraySlice<UInt8>]) {
    var fixes: [LocationFix] = []
    var errors: [IngestError] = []
    for line in lines {
        let alone = decodeTrace({ TraceDecoder(format: .ndjson, source: "fuzz", defaultDevice: "fuzz")! }, Array(line), split: nil)
        fixes += alone.fixes
        errors += alone.errors
    }
    let differs = zip(stream.fixes, fixes).first { $0 != $1 }.map { "\($0) vs \($1)" } ?? "\(stream.fixes.count) vs \(fixes.count) fixes"
    invariant(stream.fixes == fixes, "ndjson: lines read in a stream and alone give different fixes: \(differs)")
    invariant(stream.errors.map { [$0.kind, $0.field ?? "", $0.reason] } == errors.map { [$0.kind, $0.field ?? "", $0.reason] },
              "ndjson: lines read in a stream and alone give different errors: \(stream.errors) vs \(errors)")
}

/// Flat lines are read by `FlatJSONScanner`, anything with a string escape by `JSONParser`. An unknown member whose
/// name has an escape (`"\u005f_fuzz_slow_path":0`) changes nothing for the record but sends the line down the full
/// parser, so the two paths must give the same fix, or reject for the same reason. (Lines that already name that
/// member are left out: the copy would repeat a name.)
func checkFastPathAgreesWithParser(_ line: [UInt8]) {
    guard occurrences(of: "fuzz_slow_path", in: line) == 0, let brace = line.firstIndex(where: { $0 != 32 && $0 != 9 }), line[brace] == UInt8(ascii: "{"),
        let next = line[(brace + 1)...].firstIndex(where: { $0 != 32 && $0 != 9 }), line[next] != UInt8(ascii: "}")
    else { return }
    let slow = Array(line[...brace]) + Array(#""\u005f_fuzz_slow_path":0,"#.utf8) + Array(line[(brace + 1)...])
    let a = decodeTrace({ TraceDecoder(format: .ndjson, source: "fuzz", defaultDevice: "fuzz")! }, line, split: nil)
    let b = decodeTrace({ TraceDecoder(format: .ndjson, source: "fuzz", defaultDevice: "fuzz")! }, slow, split: nil)
    invariant(a.fixes == b.fixes, "ndjson: fast path and JSONParser disagree on the fix: \(a.fixes) vs \(b.fixes) for "
        + String(decoding: line.prefix(300), as: UTF8.self))
    invariant(a.errors.map { [$0.kind, $0.field ?? ""] } == b.errors.map { [$0.kind, $0.field ?? ""] },
              "ndjson: fast path and JSONParser reject differently: \(a.errors) vs \(b.errors) for "
                + String(decoding: line.prefix(300), as: UTF8.self))
}

runFuzzer(fuzzNDJSONFixes)
