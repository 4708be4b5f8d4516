/// AltBeacon's `ArmaRssiFilter`: an auto-regressive moving average, n(t) = n(t−1) − c·(n(t−1) − x(t)), seeded with
/// the first sample; c = 0.1 by default (AltBeacon suggests 0.25–0.5 for slowly advertising beacons).
///
/// Deliberate difference: AltBeacon stores n(t) as an `int`, truncating every step, so with c = 0.1 a difference of
/// less than 10 dB never moves the value (−50 then −59 gives −50.9 → −50, forever). Here n(t) stays a Double.
public struct ARMARSSIFilter: Hashable, Sendable {
    public static let defaultCoefficient = 0.1

    public var coefficient: Double
    public private(set) var value: Double?

    public init(coefficient: Double = defaultCoefficient) {
        // Outside (0, 1] the recursion does not smooth (0 freezes, > 1 overshoots); clamp rather than trap.
        self.coefficient = coefficient.isFinite ? min(max(coefficient, .ulpOfOne), 1) : Self.defaultCoefficient
    }

    @discardableResult
    public mutating func add(_ rssi: Int) -> Double {
        let x = Double(rssi)
        let next = value.map { $0 - coefficient * ($0 - x) } ?? x
        value = next
        return next
    }
}
