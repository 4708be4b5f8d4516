import TriggerEngine

/// The RSSI smoothing used by `ProximityEstimator`: one of two concrete filters, no protocol, no existential.
/// A fresh value doubles as the configuration: the estimator copies it for each new beacon.
public enum RSSIFilter: Hashable, Sendable {
    case runningAverage(RunningAverageRSSIFilter)
    case arma(ARMARSSIFilter)
    /// No smoothing: the latest sample.
    case none(latest: Int?)

    /// AltBeacon's default: running average over 20 s.
    public static let `default` = RSSIFilter.runningAverage(RunningAverageRSSIFilter())
    public static func runningAverage(window: Timestamp.Duration) -> RSSIFilter {
        .runningAverage(RunningAverageRSSIFilter(window: window))
    }
    public static func arma(coefficient: Double = ARMARSSIFilter.defaultCoefficient) -> RSSIFilter {
        .arma(ARMARSSIFilter(coefficient: coefficient))
    }
    public static let unsmoothed = RSSIFilter.none(latest: nil)

    /// Adds a sample taken at `time` and returns the smoothed RSSI.
    @discardableResult
    public mutating func add(_ rssi: Int, at time: Timestamp) -> Double {
        switch self {
        case .runningAverage(var f):
            // Release the enum's reference first so `f`'s sample buffer is unique and mutates in place (otherwise
            // every sample would copy the whole buffer).
            self = .none(latest: nil)
            let v = f.add(rssi, at: time)
            self = .runningAverage(f)
            return v
        case .arma(var f):
            let v = f.add(rssi)
            self = .arma(f)
            return v
        case .none:
            self = .none(latest: rssi)
            return Double(rssi)
        }
    }

    /// The current smoothed RSSI, nil before the first sample.
    public var value: Double? {
        switch self {
        case .runningAverage(let f): f.value
        case .arma(let f): f.value
        case .none(let latest): latest.map(Double.init)
        }
    }
}
