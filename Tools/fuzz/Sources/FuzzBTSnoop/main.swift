import Beacons
import FuzzDriver
import TriggerEngine

/// libFuzzer entry: arbitrary bytes as a btsnoop file, read record by record and replayed through the pipeline.
func fuzzBTSnoop(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let reader = try? BTSnoopReader(bytes: bytes) else { return 0 }
    var pipeline = BeaconScanPipeline(observer: "fuzz")
    try? pipeline.replay(reader) { _ in }
    return 0
}

runFuzzer { data, size in
    guard let data else { return 0 }
    return fuzzBTSnoop(data, size)
}
