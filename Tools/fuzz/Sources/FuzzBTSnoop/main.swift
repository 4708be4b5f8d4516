import Beacons
#if canImport(Glibc)
import Glibc
#endif
import TriggerEngine

/// libFuzzer entry: arbitrary bytes as a btsnoop file, read record by record and replayed through the pipeline.
func fuzzBTSnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let reader = try? BTSnoopReader(bytes: bytes) else { return 0 }
    var pipeline = BeaconScanPipeline(observer: "fuzz")
    try? pipeline.replay(reader) { _ in }
    return 0
}

/// libFuzzer's driver, from its no-main runtime: it parses the libFuzzer command line and calls the target.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    guard let data else { return 0 }
    return fuzzBTSnoop(data, size)
})
