import TriggerEngine

/// Smooths each beacon's RSSI per observer and turns it into distance and proximity (SPEC §3: `immediate` < 0.5 m,
/// `near` < 3 m, else `far`; `unknown` without txPower or RSSI).
///
/// State is kept per (observer, beacon), the beacon named by its identity or, for identity-less frames, its address.
/// Memory is bounded: entries idle for longer than `idleTimeout` are evicted (swept at most once per timeout, so the
/// cost is amortised), and if more than `maximumEntries` are live the least recently seen half is dropped.
/// Time is the sightings' own timestamps, so a replay estimates exactly what the live run did.
public struct ProximityEstimator: Sendable {
    public var filter: RSSIFilter
    public var model: DistanceModel
    public var idleTimeout: Timestamp.Duration
    public var maximumEntries: Int

    struct Key: Hashable, Sendable {
        var observer: String
        var beacon: Beacon
        enum Beacon: Hashable, Sendable {
            case identity(BeaconIdentity)
            case address(String)
        }
    }
    struct Entry: Sendable {
        var filter: RSSIFilter
        var lastSeen: Timestamp

        mutating func add(_ rssi: Int, at time: Timestamp) -> Double {
            if time > lastSeen { lastSeen = time }
            return filter.add(rssi, at: time)
        }
    }
    private var entries: [Key: Entry] = [:]
    private var clock = Timestamp.distantPast
    private var lastSweep = Timestamp.distantPast

    /// - Parameters:
    ///   - filter: a fresh filter, copied for every new beacon (default: AltBeacon's 20 s running average).
    ///   - idleTimeout: defaults to the running-average window (20 s), after which such an entry has no samples.
    public init(filter: RSSIFilter = .default, model: DistanceModel = .default, idleTimeout: Timestamp.Duration? = nil,
                maximumEntries: Int = 100_000) {
        self.filter = filter
        self.model = model
        if let idleTimeout {
            self.idleTimeout = idleTimeout
        } else if case .runningAverage(let f) = filter {
            self.idleTimeout = f.window
        } else {
            self.idleTimeout = RunningAverageRSSIFilter.defaultWindow
        }
        self.maximumEntries = max(1, maximumEntries)
    }

    /// Beacons currently tracked.
    public var entryCount: Int { entries.count }

    /// The sighting with `distance` and `proximity` set from the smoothed RSSI (the sighting's own `rssi` is left
    /// as received).
    public mutating func estimate(_ sighting: BeaconSighting) -> BeaconSighting {
        var s = sighting
        s.distance = nil
        s.proximity = .unknown
        guard let rssi = sighting.rssi else { return s }
        if sighting.timestamp > clock { clock = sighting.timestamp }
        sweepIfDue()

        let smoothed: Double
        if let key = key(for: sighting) {
            // Mutated in place through the dictionary's `default:` subscript: no copy of the filter's samples.
            let time = sighting.timestamp
            smoothed = entries[key, default: Entry(filter: filter, lastSeen: time)].add(rssi, at: time)
            if entries.count > maximumEntries { shrink() }
        } else {
            smoothed = Double(rssi)  // nothing to key the history on: the raw reading
        }
        guard let tx = sighting.txPower else { return s }
        s.distance = model.distance(rssi: smoothed, txPower: tx)
        s.proximity = Proximity(distance: s.distance)
        return s
    }

    private func key(for s: BeaconSighting) -> Key? {
        if let id = s.identity { return Key(observer: s.device, beacon: .identity(id)) }
        if let a = s.address { return Key(observer: s.device, beacon: .address(a)) }
        return nil
    }

    private mutating func sweepIfDue() {
        guard clock - lastSweep >= idleTimeout else { return }
        lastSweep = clock
        let cutoff = clock.microseconds &- idleTimeout.microseconds
        // Removed in place: `filter` rebuilt the table, hashing every live key again (4 % of `scan --btsnoop`).
        let idle = entries.compactMap { $0.value.lastSeen.microseconds > cutoff ? nil : $0.key }
        for key in idle { entries.removeValue(forKey: key) }
    }

    /// Over the cap even after sweeping idle entries: keep the most recently seen half.
    private mutating func shrink() {
        let times = entries.values.map(\.lastSeen.microseconds).sorted()
        let cutoff = times[times.count / 2]
        entries = entries.filter { $0.value.lastSeen.microseconds >= cutoff }
        if entries.count > maximumEntries {
            // All equally recent: drop arbitrary ones rather than exceed the bound.
            entries = Dictionary(uniqueKeysWithValues: entries.prefix(maximumEntries / 2 + 1).map { ($0.key, $0.value) })
        }
    }
}
