import Testing
import TriggerEngine
@testable import Beacons

/// RSSI smoothing: AltBeacon's running average (20 s window, trimmed) and ARMA (c = 0.1).
@Suite struct RSSIFilterTests {
    func t(_ seconds: Double) -> Timestamp { Timestamp(seconds: 1_800_000_000 + seconds) }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func altBeaconVectorsFirstSampleIsReturnedUnchanged() throws {
        let cases = try #require(try BeaconData.json("beacons/rssi-filter-cases.json")["cases"]?.arrayValue)
        #expect(cases.count == 2)
        for c in cases {
            var filter: RSSIFilter = c["filter"]?.stringValue == "ArmaRssiFilter" ? .arma() : .default
            var last: Double?
            for (k, x) in (c["inputsDbm"]?.arrayValue ?? []).enumerated() {
                last = filter.add(Int(x.doubleValue ?? 0), at: t(Double(k)))
            }
            #expect(last == c["expectRssi"]?.doubleValue, "\(c["source"]?.stringValue ?? "")")
        }
    }

    @Test func runningAverageDefaultsToTwentySeconds() {
        #expect(RunningAverageRSSIFilter().window == Timestamp.Duration(seconds: 20))
    }

    @Test func runningAverageOfTwoIsTheMean() {
        var f = RunningAverageRSSIFilter()
        f.add(-60, at: t(0))
        #expect(f.add(-75, at: t(1)) == -67.5)
    }

    @Test func runningAverageOfThreeIsTheMedian() {
        var f = RunningAverageRSSIFilter()
        f.add(-60, at: t(0))
        f.add(-90, at: t(1))
        #expect(f.add(-75, at: t(2)) == -75)
    }

    @Test func runningAverageDropsATenthPlusOneFromEachEnd() {
        // n = 10: AltBeacon keeps sorted[2...7] (start n/10+1, end n−n/10−2).
        var f = RunningAverageRSSIFilter()
        let samples = [-40, -99, -50, -51, -52, -53, -54, -55, -98, -41]
        var v = 0.0
        for (k, x) in samples.enumerated() { v = f.add(x, at: t(Double(k))) }
        #expect(v == Double(-50 - 51 - 52 - 53 - 54 - 55) / 6)
    }

    @Test func samplesExpireAfterTheWindow() {
        var f = RunningAverageRSSIFilter()
        f.add(-90, at: t(0))
        #expect(f.add(-60, at: t(19.999)) == -75)
        // Exactly 20 s old is expired (AltBeacon keeps age < expiration).
        #expect(f.add(-60, at: t(20)) == -60)
        #expect(f.sampleCount == 2)
    }

    @Test func windowIsConfigurablePerFilter() {
        // AltBeacon's configuration cases: a 33 ms expiration stays 33 ms once set.
        var f = RSSIFilter.runningAverage(window: Timestamp.Duration(microseconds: 33_000))
        f.add(-90, at: t(0))
        #expect(f.add(-60, at: t(0.032)) == -75)
        #expect(f.add(-60, at: t(0.066)) == -60)
    }

    @Test func sampleCountIsBounded() {
        var f = RunningAverageRSSIFilter(maximumSamples: 8)
        for k in 0..<1000 { f.add(-50 - k % 7, at: t(Double(k) / 1000)) }
        #expect(f.sampleCount == 8)
    }

    @Test func armaMovesATenthOfTheWayAndDoesNotTruncate() {
        var f = ARMARSSIFilter()
        #expect(f.add(-50) == -50)
        // AltBeacon's int state would stay at −50 here.
        #expect(abs(f.add(-59) - (-50.9)) < 1e-12)
        var g = ARMARSSIFilter(coefficient: 0.5)
        g.add(-50)
        #expect(g.add(-60) == -55)
    }

    @Test func armaCoefficientIsClampedNotTrapped() {
        #expect(ARMARSSIFilter(coefficient: 5).coefficient == 1)
        #expect(ARMARSSIFilter(coefficient: .nan).coefficient == 0.1)
        #expect(ARMARSSIFilter(coefficient: -1).coefficient > 0)
    }

    @Test func unsmoothedReturnsTheLatest() {
        var f = RSSIFilter.unsmoothed
        #expect(f.value == nil)
        f.add(-70, at: t(0))
        #expect(f.add(-80, at: t(1)) == -80)
    }
}
