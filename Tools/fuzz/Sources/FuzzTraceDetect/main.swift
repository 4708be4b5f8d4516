import FuzzChecks
import FuzzDriver
import Ingest

/// libFuzzer entry: bytes as a trace file of unknown format, as `replay`/`convert` open one: the format is detected
/// from the first 8 KiB (TraceFileReader's prefix), then that decoder reads the whole file, whole and in two chunks.
func fuzzTraceDetect(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    guard let format = TraceFormat.detect(prefix: Array(input.prefix(8192)), fileName: "fuzz") else { return 0 }
    checkTrace(format, input)
    return 0
}

runFuzzer(fuzzTraceDetect)
