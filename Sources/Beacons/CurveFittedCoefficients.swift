/// Coefficients of AltBeacon's curve-fitted distance model, d = A·(rssi/txPower)^B + C for rssi/txPower ≥ 1
/// (`CurveFittedDistanceCalculator`), fitted per receiving phone model (`model-distance-calculations.json`).
public struct CurveFittedCoefficients: Hashable, Sendable {
    public var a: Double
    public var b: Double
    public var c: Double

    public init(a: Double, b: Double, c: Double) {
        self.a = a
        self.b = b
        self.c = c
    }

    // The four models in AltBeacon's model-distance-calculations.json (Apache-2.0); Nexus 5 is its default.
    public static let nexus4 = CurveFittedCoefficients(a: 0.89976, b: 7.7095, c: 0.111)
    public static let nexus5 = CurveFittedCoefficients(a: 0.42093, b: 6.9476, c: 0.54992)
    public static let motoXPro = CurveFittedCoefficients(a: 0.9401940951, b: 6.170094565, c: 0.0)
    public static let motorolaXT1092 = CurveFittedCoefficients(a: 0.1862616782, b: 8.235367435, c: -0.45324519)
}
