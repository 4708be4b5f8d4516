import TriggerEngine

extension HCIScanner: LiveBeaconScanner {
    @discardableResult
    public func poll(timeoutMilliseconds: Int32, pipeline: inout BeaconScanPipeline,
                     _ body: (BeaconSighting) -> Void) throws -> Int {
        try poll(timeoutMilliseconds: timeoutMilliseconds) { ad in
            if let s = pipeline.sighting(report: ad.report, timestamp: ad.timestamp) { body(s) }
        }
    }
}
