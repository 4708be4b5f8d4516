import FuzzChecks
import FuzzDriver
import Ingest
import TriggerEngine

/// libFuzzer entry: bytes as Traccar positions (array, NDJSON or forwarded `{position, device}` events) through
/// `TraceDecoder(format: .traccar)`, whole and in two chunks.
func fuzzTraccar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.traccar, input)
    for f in outcome.fixes {
        // Accuracy 0 is Traccar's "unknown".
        if let a = f.horizontalAccuracy { invariant(a > 0, "traccar: accuracy \(a) kept") }
    }
    return 0
}

runFuzzer(fuzzTraccar)
