import FuzzChecks
import FuzzDriver
import Ingest

/// libFuzzer entry: bytes as an NMEA 0183 stream (a gpsd log, a serial capture) through `TraceDecoder(format: .nmea)`,
/// whole and in two chunks.
func fuzzNMEA(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let outcome = checkTrace(.nmea, input)
    // Every fix is one epoch, and every epoch was begun by a `$` sentence.
    let sentences = input.lazy.filter { $0 == UInt8(ascii: "$") }.count
    invariant(outcome.fixes.count <= sentences, "nmea: \(outcome.fixes.count) fixes from \(sentences) sentences")
    // NMEA has no device id: every fix carries the default.
    invariant(outcome.fixes.allSatisfy { $0.device == "fuzz" }, "nmea: a fix with a device other than the default")
    return 0
}

runFuzzer(fuzzNMEA)
