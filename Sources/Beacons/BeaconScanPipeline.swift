import TriggerEngine

/// Advertising data + address + RSSI + time + observer → a decoded `BeaconSighting` with proximity estimated.
/// What `geotrigger scan` runs for both live scanning (`HCIScanner`) and btsnoop replay (`BTSnoopReader`), so the
/// two paths cannot drift apart.
public struct BeaconScanPipeline: Sendable {
    /// The observer named in every sighting (the gateway's device id); during `replay` with adapter naming, the
    /// observer of the record's adapter.
    public var observer: String
    public var decoder: BeaconFrameDecoder
    public var estimator: ProximityEstimator
    public let metrics: BeaconScanMetrics
    public private(set) var statistics = Statistics()
    /// One per source (controller index in a multi-adapter capture; 0 live), so fragments from two adapters never
    /// cut each other's advertisements short.
    private var reassemblers: [UInt16: ExtendedReportReassembler] = [:]
    /// Each advertiser's address text, made once: the 17-byte String is a heap allocation per sighting otherwise.
    /// Bounded: emptied when it would pass `addressTextLimit` (a gateway hears far fewer at a time).
    private var addressTexts: [UInt64: String] = [:]
    static let addressTextLimit = 4096

    public struct Statistics: Hashable, Sendable {
        /// Advertisements handed to the decoder: one per report, or per joined chain of extended-report fragments.
        public var advertisements = 0
        /// Of those, decoded as a supported beacon frame.
        public var beacons = 0
        /// HCI events that failed to parse (counted and skipped, never fatal).
        public var malformedEvents = 0
        /// Legacy reports with more than 31 bytes of data (decoded anyway).
        public var oversizedLegacyReports = 0
        /// Advertisements joined from two or more extended-report fragments.
        public var reassembledAdvertisements = 0
        /// Extended advertisements the controller cut short (or longer than 1650 bytes): what arrived was decoded.
        public var truncatedAdvertisements = 0
        /// Fragment chains dropped unfinished: cut off by another advertiser's fragment, or by the end of a replay.
        public var abandonedAdvertisements = 0
        public var lastError: HCIEventError?
    }

    public init(observer: String, decoder: BeaconFrameDecoder = BeaconFrameDecoder(),
                estimator: ProximityEstimator = ProximityEstimator(), metrics: BeaconScanMetrics = BeaconScanMetrics()) {
        self.observer = observer
        self.decoder = decoder
        self.estimator = estimator
        self.metrics = metrics
    }

    /// One advertisement; nil when it is not a supported beacon frame.
    public mutating func sighting(adData: ArraySlice<UInt8>, address: BluetoothAddress?, rssi: Int?,
                                  timestamp: Timestamp) -> BeaconSighting? {
        statistics.advertisements += 1
        guard let frame = decoder.decode(adData) else { return nil }
        statistics.beacons += 1
        let text = address.map { addressText($0) }
        let raw = BeaconSighting(device: observer, timestamp: timestamp, identity: frame.identity, rssi: rssi,
                                 txPower: frame.txPower, address: text, telemetry: frame.telemetry)
        return estimator.estimate(raw)
    }

    private mutating func addressText(_ address: BluetoothAddress) -> String {
        if let text = addressTexts[address.value] { return text }
        if addressTexts.count >= Self.addressTextLimit { addressTexts.removeAll(keepingCapacity: true) }
        let text = address.description
        addressTexts[address.value] = text
        return text
    }

    /// One advertising report, in the order the controller sent it. An extended-report fragment is kept until its
    /// advertisement is complete (nil until then); the report that completes it yields the sighting.
    public mutating func sighting(report: HCIAdvertisingReport, timestamp: Timestamp) -> BeaconSighting? {
        sighting(report: report, source: 0, timestamp: timestamp)
    }

    mutating func sighting(report: HCIAdvertisingReport, source: UInt16, timestamp: Timestamp) -> BeaconSighting? {
        if report.format == .legacy {
            if report.isOversizedLegacy {
                statistics.oversizedLegacyReports += 1
                metrics.oversizedLegacy.increment()
            }
            return sighting(adData: report.data, address: report.address, rssi: report.rssi, timestamp: timestamp)
        }
        let before = reassemblers[source]?.abandoned ?? 0
        let joined = reassemblers[source, default: ExtendedReportReassembler()].add(report)
        let cutOff = (reassemblers[source]?.abandoned ?? 0) - before
        if cutOff > 0 {
            statistics.abandonedAdvertisements += cutOff
            metrics.abandoned.increment(by: cutOff)
        }
        guard let joined else { return nil }
        if joined.fragments > 1 {
            statistics.reassembledAdvertisements += 1
            metrics.reassembled.increment()
        }
        if joined.truncated {
            statistics.truncatedAdvertisements += 1
            metrics.truncated.increment()
        }
        return sighting(adData: joined.report.data, address: joined.report.address, rssi: joined.report.rssi,
                        timestamp: timestamp)
    }

    /// Every beacon in one HCI event (event code first). A malformed event is counted and yields nothing.
    public mutating func sightings(hciEvent: ArraySlice<UInt8>, timestamp: Timestamp) -> [BeaconSighting] {
        var out: [BeaconSighting] = []
        forEachSighting(hciEvent: hciEvent, source: 0, timestamp: timestamp) { out.append($0) }
        return out
    }

    /// The same without collecting into an array (the replay hot path).
    mutating func forEachSighting(hciEvent: ArraySlice<UInt8>, source: UInt16, timestamp: Timestamp,
                                  _ body: (BeaconSighting) throws -> Void) rethrows {
        let reports: [HCIAdvertisingReport]
        do {
            reports = try HCIEventParser.advertisingReports(inEvent: hciEvent)
        } catch {
            statistics.malformedEvents += 1
            statistics.lastError = error
            metrics.malformedEvents.increment()
            return
        }
        for r in reports {
            if let s = sighting(report: r, source: source, timestamp: timestamp) { try body(s) }
        }
    }

    /// Drops fragments still waiting for the rest of their advertisement (the input ended), counting them.
    public mutating func finish() {
        let pending = reassemblers.filter { $0.value.isPending }.map { $0.key }
        for source in pending {
            reassemblers[source]?.abandonPending()
            statistics.abandonedAdvertisements += 1
            metrics.abandoned.increment()
        }
    }

    /// Replays a capture to its end: every beacon sighting in its HCI events, in file order, stamped with the record
    /// times. `controllerIndex` limits a Linux-monitor capture to one controller (hciN). With `observerForAdapter`,
    /// a monitor capture's sightings name the observer of the adapter that heard them: the function is given the
    /// adapter's name from the capture's "New Index" record (`hci1`), else `hciN` for controller index N (the
    /// kernel's own naming); records without an index (H4, H1 captures) keep `observer`. A corrupt file ends the
    /// replay with its `BTSnoopError`; a malformed event inside a good record is counted and skipped.
    public mutating func replay(_ reader: BTSnoopReader, controllerIndex: UInt16? = nil,
                                observerForAdapter: ((String) -> String)? = nil,
                                _ body: (BeaconSighting) throws -> Void) throws {
        let fallback = observer
        defer { observer = fallback }
        // Made once per adapter, so a record costs a dictionary lookup, not a string.
        var observers: [UInt16: String] = [:]
        while let record = try reader.next() {
            if let observerForAdapter, let index = record.controllerIndex, let name = record.newIndexAdapterName {
                observers[index] = observerForAdapter(name)
                continue
            }
            guard let event = record.hciEvent else { continue }
            let index = record.controllerIndex
            if let controllerIndex, index != nil, index != controllerIndex { continue }
            if let observerForAdapter {
                if let index {
                    if observers[index] == nil { observers[index] = observerForAdapter("hci\(index)") }
                    observer = observers[index] ?? fallback
                } else {
                    observer = fallback
                }
            }
            try forEachSighting(hciEvent: event, source: index ?? 0, timestamp: record.timestamp, body)
        }
        finish()
    }
}
