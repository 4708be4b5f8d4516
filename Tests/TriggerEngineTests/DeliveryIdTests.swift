import Testing
import TestSupport
@testable import TriggerEngine

/// The deliveryId written byte by byte is the id the SPEC's formula gives: `identifier/device/revision-TIME[-k]`, the
/// time in Unix seconds with the fraction's trailing zeros dropped, for any names, times before and after 1970,
/// every fraction width and ordinal.
@Suite struct DeliveryIdTests {
    /// The formula as string interpolation (how the engine built ids before).
    static func interpolated(identifier: String, device: String, revision: UInt64, at time: Timestamp, ordinal: UInt32) -> String {
        let us = time.microseconds
        var seconds = us / 1_000_000
        var fraction = us % 1_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000 }
        var id = "\(identifier)/\(device)/\(revision)-\(seconds)"
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            id += "." + digits
        }
        if ordinal > 1 { id += "-\(ordinal)" }
        return id
    }

    @Test func writtenIdsEqualTheFormula() {
        var rng = SplitMix(seed: 0xD11D)
        let names = ["r", "geofence-🏠", "zürich/office", String(repeating: "x", count: 200), "a b\"c", "", "device-123456"]
        for _ in 0..<20_000 {
            let identifier = rng.pick(names) + String(rng.int(0, 99_999))
            let device = rng.pick(names)
            let revision = rng.chance(0.1) ? UInt64.max : UInt64(rng.int(0, 1_000_000))
            let seconds = Int64(rng.int(-4_000_000_000, 4_000_000_000))
            let fraction: Int64 = switch rng.int(0, 3) {
            case 0: 0
            case 1: Int64(rng.int(1, 9)) * Int64(rng.pick([1, 10, 100, 1_000, 10_000, 100_000]))
            default: Int64(rng.int(0, 999_999))
            }
            let time = Timestamp(microseconds: seconds * 1_000_000 + fraction)
            let ordinal = rng.chance(0.2) ? (rng.chance(0.1) ? UInt32.max : UInt32(rng.int(2, 99))) : UInt32(rng.int(0, 1))
            let expected = Self.interpolated(identifier: identifier, device: device, revision: revision, at: time, ordinal: ordinal)
            #expect(EngineCore.deliveryId(identifier: identifier, device: device, revision: revision, at: time, ordinal: ordinal) == expected)
        }
        // The extremes of the time line.
        for us in [Int64.min, Int64.min + 1, -1, 0, 1, Int64.max] {
            let time = Timestamp(microseconds: us)
            #expect(EngineCore.deliveryId(identifier: "r", device: "d", revision: 1, at: time, ordinal: 2)
                    == Self.interpolated(identifier: "r", device: "d", revision: 1, at: time, ordinal: 2))
        }
    }
}
