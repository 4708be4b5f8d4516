/// A seeded random number generator (SplitMix64): the same seed gives the same scenario on every machine, so a
/// failing property test can be replayed from the seed it prints.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    public mutating func double(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in lo...hi.
    public mutating func int(_ lo: Int, _ hi: Int) -> Int { lo + Int(next() % UInt64(hi - lo + 1)) }

    public mutating func chance(_ p: Double) -> Bool { double(0, 1) < p }

    public mutating func pick<T>(_ xs: [T]) -> T { xs[int(0, xs.count - 1)] }
}
