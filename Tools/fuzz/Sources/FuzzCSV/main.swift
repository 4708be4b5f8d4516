import FuzzChecks
import FuzzDriver
import Ingest

/// libFuzzer entry: bytes as a CSV trace through `TraceDecoder(format: .csv)`, whole and in two chunks.
func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.csv, input)
    // A record is at least one line: each fix or error (one per record at most) needs a line of its own.
    let lines = input.lazy.filter { $0 == 10 }.count + 1
    invariant(outcome.fixes.count + outcome.errors.count <= lines,
              "csv: \(outcome.fixes.count) fixes and \(outcome.errors.count) errors from \(lines) lines")
    return 0
}

runFuzzer(fuzzCSV)
