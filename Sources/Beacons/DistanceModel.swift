#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// RSSI + calibrated 1 m power → distance in metres.
public enum DistanceModel: Hashable, Sendable {
    /// Log-distance path loss: d = 10^((txPower − rssi) / (10·n)); n = 2 is free space, 2.5–4 indoors.
    case logDistance(pathLossExponent: Double)
    /// AltBeacon's fitted curve: (rssi/txPower)^10 below 1 m, A·(rssi/txPower)^B + C beyond.
    case curveFitted(CurveFittedCoefficients)

    public static let `default` = DistanceModel.logDistance(pathLossExponent: 2)
    /// AltBeacon's default model (Nexus 5 coefficients).
    public static let altBeaconDefault = DistanceModel.curveFitted(.nexus5)

    /// nil when it cannot be estimated: RSSI of 0 (AltBeacon's "unknown"), txPower 0, non-finite input, or a
    /// non-positive path-loss exponent. Never negative: a fitted curve with C < 0 is clamped to 0 m.
    public func distance(rssi: Double, txPower: Int) -> Double? {
        guard rssi.isFinite, rssi != 0, txPower != 0 else { return nil }
        let d: Double
        switch self {
        case .logDistance(let n):
            guard n.isFinite, n > 0 else { return nil }
            d = pow(10, (Double(txPower) - rssi) / (10 * n))
        case .curveFitted(let k):
            let ratio = rssi / Double(txPower)
            d = ratio < 1 ? pow(ratio, 10) : k.a * pow(ratio, k.b) + k.c
        }
        guard d.isFinite else { return nil }
        return max(0, d)
    }
}
