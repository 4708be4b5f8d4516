import TriggerEngine

/// Advertising data + address + RSSI + time + observer → a decoded `BeaconSighting` with proximity estimated.
/// What `geotrigger scan` runs for both live scanning (`HCIScanner`) and btsnoop replay (`BTSnoopReader`), so the
/// two paths cannot drift apart.
public struct BeaconScanPipeline: Sendable {
    /// The observer named in every sighting (the gateway's device id).
    public var observer: String
    public var decoder: BeaconFrameDecoder
    public var estimator: ProximityEstimator
    public private(set) var statistics = Statistics()

    public struct Statistics: Hashable, Sendable {
        /// Advertising reports seen (HCI paths) or advertisements handed in.
        public var advertisements = 0
        /// Of those, decoded as a supported beacon frame.
        public var beacons = 0
        /// HCI events that failed to parse (counted and skipped, never fatal).
        public var malformedEvents = 0
        public var lastError: HCIEventError?
    }

    public init(observer: String, decoder: BeaconFrameDecoder = BeaconFrameDecoder(),
                estimator: ProximityEstimator = ProximityEstimator()) {
        self.observer = observer
        self.decoder = decoder
        self.estimator = estimator
    }

    /// One advertisement; nil when it is not a supported beacon frame.
    public mutating func sighting(adData: ArraySlice<UInt8>, address: BluetoothAddress?, rssi: Int?,
                                  timestamp: Timestamp) -> BeaconSighting? {
        statistics.advertisements += 1
        guard let frame = decoder.decode(adData) else { return nil }
        statistics.beacons += 1
        let raw = BeaconSighting(device: observer, timestamp: timestamp, identity: frame.identity, rssi: rssi,
                                 txPower: frame.txPower, address: address?.description, telemetry: frame.telemetry)
        return estimator.estimate(raw)
    }

    public mutating func sighting(report: HCIAdvertisingReport, timestamp: Timestamp) -> BeaconSighting? {
        sighting(adData: report.data, address: report.address, rssi: report.rssi, timestamp: timestamp)
    }

    /// Every beacon in one HCI event (event code first). A malformed event is counted and yields nothing.
    public mutating func sightings(hciEvent: ArraySlice<UInt8>, timestamp: Timestamp) -> [BeaconSighting] {
        var out: [BeaconSighting] = []
        forEachSighting(hciEvent: hciEvent, timestamp: timestamp) { out.append($0) }
        return out
    }

    /// The same without collecting into an array (the replay hot path).
    mutating func forEachSighting(hciEvent: ArraySlice<UInt8>, timestamp: Timestamp,
                                  _ body: (BeaconSighting) throws -> Void) rethrows {
        let reports: [HCIAdvertisingReport]
        do {
            reports = try HCIEventParser.advertisingReports(inEvent: hciEvent)
        } catch {
            statistics.malformedEvents += 1
            statistics.lastError = error
            return
        }
        for r in reports {
            if let s = sighting(report: r, timestamp: timestamp) { try body(s) }
        }
    }

    /// Replays a capture to its end: every beacon sighting in its HCI events, in file order, stamped with the record
    /// times. `controllerIndex` limits a Linux-monitor capture to one controller (hciN). A corrupt file ends the
    /// replay with its `BTSnoopError`; a malformed event inside a good record is counted and skipped.
    public mutating func replay(_ reader: BTSnoopReader, controllerIndex: UInt16? = nil,
                                _ body: (BeaconSighting) throws -> Void) throws {
        while let record = try reader.next() {
            guard let event = record.hciEvent else { continue }
            if let controllerIndex, record.controllerIndex != nil, record.controllerIndex != controllerIndex { continue }
            try forEachSighting(hciEvent: event, timestamp: record.timestamp, body)
        }
    }
}
