import TestSupport
import Testing
@testable import TriggerEngine

/// `parseRFC3339(_:day:)` remembers the last date it read: over a stream of timestamps sharing dates, differing in
/// them, with offsets, fractions, a space for `T`, dates alone, leap seconds and invalid text, it answers exactly as
/// the plain parser does, text by text.
@Suite struct RFC3339DayTests {
    @Test(arguments: 1...4 as ClosedRange<UInt64>) func theRememberedDateChangesNoAnswer(seed: UInt64) {
        var rng = SplitMix(seed: seed)
        var day = RFC3339Day()
        var hits = 0
        var date = (year: 2026, month: 11, day: 20)
        for k in 0..<4000 {
            switch rng.int(0, 19) {
            case 0: date = (rng.int(1969, 2100), rng.int(1, 12), rng.int(1, 31))
            case 1: date.day = rng.int(1, 31)  // the same month: only the last two bytes differ
            default: break
            }
            let d = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
            let separator = ["T", "t", " ", "T", "T"][rng.int(0, 4)]
            let time = String(format: "%02d:%02d:%02d", rng.int(0, 24), rng.int(0, 60), rng.int(0, 60))
            let fraction = ["", ".5", ".123", ".123456", ",25", "."][rng.int(0, 5)]
            let zone = ["Z", "z", "+01:00", "-05:30", "", "+0200", "Q"][rng.int(0, 6)]
            var text: String
            switch rng.int(0, 19) {
            case 0: text = d  // a date alone
            case 1: text = d + separator  // cut short
            case 2: text = String(d.prefix(rng.int(0, 9)))
            case 3: text = d + "X" + time + zone
            default: text = d + separator + time + fraction + zone
            }
            let cached = text.utf8CString.withUnsafeBytes { bytes in
                Timestamp.parseRFC3339(UnsafeRawBufferPointer(rebasing: bytes.dropLast()), day: &day)
            }
            let plain = text.utf8CString.withUnsafeBytes { bytes in
                Timestamp.parseRFC3339(UnsafeRawBufferPointer(rebasing: bytes.dropLast()))
            }
            #expect(cached == plain, "seed \(seed) line \(k): \(text)")
            if plain != nil, k > 0 { hits += 1 }
        }
        #expect(hits > 1000, "enough valid timestamps to have used the remembered date")
    }
}
