import FuzzChecks
import FuzzDriver
import Ingest
import TriggerEngine

/// libFuzzer entry: bytes as OwnTracks messages (NDJSON, concatenated documents or the HTTP bulk array) through
/// `TraceDecoder(format: .owntracks)`, whole and in two chunks.
func fuzzOwnTracks(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.owntracks, input)
    for f in outcome.fixes {
        // `tst` is integer Unix seconds; -1/0 accuracy means "unknown" and is dropped, never kept as 0.
        invariant(f.timestamp.microseconds % 1_000_000 == 0, "owntracks: a fix between whole seconds: \(f)")
        if let a = f.horizontalAccuracy { invariant(a > 0, "owntracks: accuracy \(a) kept") }
    }
    return 0
}

runFuzzer(fuzzOwnTracks)
