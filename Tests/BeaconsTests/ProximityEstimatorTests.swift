#if canImport(Glibc)
import Glibc
#endif
import Testing
import TriggerEngine
@testable import Beacons

/// Per (observer, beacon) smoothing → distance → proximity (SPEC §3), with bounded memory.
@Suite struct ProximityEstimatorTests {
    let uuid = UUID128(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)
    func sighting(_ device: String = "gw-1", minor: UInt16 = 1, rssi: Int?, tx: Int? = -59, at s: Double) -> BeaconSighting {
        BeaconSighting(device: device, timestamp: Timestamp(seconds: 1_800_000_000 + s),
                       identity: .iBeacon(uuid: uuid, major: 1, minor: minor), rssi: rssi, txPower: tx)
    }

    @Test func unknownWithoutRSSIOrTxPower() {
        var e = ProximityEstimator()
        let a = e.estimate(sighting(rssi: nil, at: 0))
        #expect(a.proximity == .unknown && a.distance == nil)
        let b = e.estimate(sighting(rssi: -60, tx: nil, at: 1))
        #expect(b.proximity == .unknown && b.distance == nil)
    }

    @Test func thresholdsFollowTheSpec() {
        var e = ProximityEstimator(filter: .unsmoothed)
        #expect(e.estimate(sighting(rssi: -52, at: 0)).proximity == .immediate)  // 0.45 m
        #expect(e.estimate(sighting(rssi: -59, at: 1)).proximity == .near)       // 1 m
        #expect(e.estimate(sighting(rssi: -69, at: 2)).proximity == .far)        // 3.16 m
    }

    @Test func smoothingIsPerObserverAndBeacon() {
        var e = ProximityEstimator()
        _ = e.estimate(sighting("gw-1", rssi: -90, at: 0))
        let other = e.estimate(sighting("gw-2", rssi: -59, at: 1))
        #expect(other.distance == 1)
        let otherBeacon = e.estimate(sighting("gw-1", minor: 2, rssi: -59, at: 1))
        #expect(otherBeacon.distance == 1)
        let same = e.estimate(sighting("gw-1", rssi: -59, at: 1))
        #expect(same.rssi == -59, "the sighting keeps its raw RSSI")
        #expect(abs((same.distance ?? 0) - pow(10, 15.5 / 20)) < 1e-9, "mean of −90 and −59 = −74.5 dBm")
        #expect(e.entryCount == 3)
    }

    @Test func idleEntriesAreEvicted() {
        var e = ProximityEstimator()
        for k in 0..<100 { _ = e.estimate(sighting(minor: UInt16(k), rssi: -60, at: 0)) }
        #expect(e.entryCount == 100)
        _ = e.estimate(sighting(minor: 1000, rssi: -60, at: 25))
        #expect(e.entryCount == 1)
    }

    @Test func entryCountIsCapped() {
        var e = ProximityEstimator(maximumEntries: 50)
        for k in 0..<1000 { _ = e.estimate(sighting(minor: UInt16(k), rssi: -60, at: Double(k) / 1000)) }
        #expect(e.entryCount <= 50)
    }

    @Test func identityLessFramesAreKeyedByAddress() {
        var e = ProximityEstimator()
        var s = BeaconSighting(device: "gw", timestamp: Timestamp(seconds: 0), identity: nil, rssi: -90, txPower: -59,
                               address: "C0:FF:EE:00:00:01")
        _ = e.estimate(s)
        s.rssi = -59
        s.timestamp = Timestamp(seconds: 1)
        #expect(abs((e.estimate(s).distance ?? 0) - pow(10, 15.5 / 20)) < 1e-9)
        #expect(e.entryCount == 1)
    }

    @Test func curveModelIsSelectable() {
        var e = ProximityEstimator(filter: .unsmoothed, model: .altBeaconDefault)
        let s = e.estimate(sighting(rssi: -59, at: 0))
        #expect(abs((s.distance ?? 0) - 0.97085) < 1e-9 && s.proximity == .near)
    }
}
