import TriggerEngine

/// AltBeacon's `RunningAverageRssiFilter`: the mean of the samples of the last `window` (default 20 s), after sorting
/// them and dropping ⌊n/10⌋+1 from each end when there are more than two (so three samples give their median).
///
/// Time is the sighting's own timestamp, not the wall clock, so a replay smooths exactly as the live run did; the
/// newest timestamp seen is "now". At most `maximumSamples` are kept (the oldest go first), which bounds memory for
/// a beacon advertising at a high rate.
public struct RunningAverageRSSIFilter: Hashable, Sendable {
    public static let defaultWindow = Timestamp.Duration(seconds: 20)

    public var window: Timestamp.Duration
    public var maximumSamples: Int

    struct Sample: Hashable, Sendable {
        var time: Timestamp
        var rssi: Int
    }
    private(set) var samples: [Sample] = []
    private var newest = Timestamp.distantPast

    public init(window: Timestamp.Duration = defaultWindow, maximumSamples: Int = 512) {
        self.window = window
        self.maximumSamples = max(1, maximumSamples)
    }

    public var sampleCount: Int { samples.count }

    /// Adds a sample and returns the smoothed value.
    @discardableResult
    public mutating func add(_ rssi: Int, at time: Timestamp) -> Double {
        if time > newest { newest = time }
        samples.append(Sample(time: time, rssi: rssi))
        expire()
        if samples.count > maximumSamples { samples.removeFirst(samples.count - maximumSamples) }
        return value ?? Double(rssi)
    }

    /// The smoothed RSSI over the samples still in the window; nil when there are none.
    public var value: Double? {
        let n = samples.count
        guard n > 0 else { return nil }
        var sorted = samples.map(\.rssi)
        sorted.sort()
        var start = 0, end = n - 1
        if n > 2 {
            start = n / 10 + 1
            end = n - n / 10 - 2
        }
        // Summed as Double: the public API takes any Int, and an integer sum of extreme values could overflow.
        var sum = 0.0
        for i in start...end { sum += Double(sorted[i]) }
        return sum / Double(end - start + 1)
    }

    /// Drops samples at least `window` older than the newest one (AltBeacon keeps `age < expiration`).
    private mutating func expire() {
        let cutoff = newest.microseconds &- window.microseconds
        samples.removeAll { $0.time.microseconds <= cutoff }
    }
}
