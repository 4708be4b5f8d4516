import Beacons
import FuzzDriver
import TriggerEngine

/// libFuzzer entry: arbitrary bytes as advertising data, as a full HCI event, and through the scan pipeline.
/// Any crash, trap or sanitizer report is a finding.
func fuzzAdvertisingData(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = BeaconFrameDecoder().decode(bytes)
    _ = AdvertisingData(bytes).map(\.type)
    _ = AdvertisingData(scanRecord: bytes).map(\.type)
    _ = try? HCIEventParser.advertisingReports(inPacket: bytes[...])
    _ = try? HCIEventParser.advertisingReports(inEvent: bytes[...])
    var pipeline = BeaconScanPipeline(observer: "fuzz")
    _ = pipeline.sightings(hciEvent: bytes[...], timestamp: Timestamp(microseconds: 0))
    return 0
}

runFuzzer { data, size in
    guard let data else { return 0 }
    return fuzzAdvertisingData(data, size)
}
