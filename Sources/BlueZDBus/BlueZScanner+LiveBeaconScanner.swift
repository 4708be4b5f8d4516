import Beacons
import TriggerEngine

extension BlueZScanner: LiveBeaconScanner {
    @discardableResult
    public func poll(timeoutMilliseconds: Int32, pipeline: inout BeaconScanPipeline,
                     _ body: (BeaconSighting) -> Void) throws -> Int {
        try poll(timeoutMilliseconds: timeoutMilliseconds) { ad in
            if let s = pipeline.sighting(adData: ad.advertisingData[...], address: ad.address, rssi: ad.rssi,
                                         timestamp: ad.timestamp) {
                body(s)
            }
        }
    }
}
