import MetricsTestKit
import Testing
import TriggerEngine
@testable import Beacons

/// Decoding as real controllers send it: legacy reports over 31 bytes, extended reports in fragments (joined,
/// truncated, cut off), and the counters that say how often each happened.
@Suite struct AdvertisingQuirksTests {
    static let uuid = UUID128(high: 0xE2C5_6DB5_DFFB_48D2, low: 0xB060_D0F5_A710_96E0)
    /// capture.btsnoop's iBeacon advertising data (flags + iBeacon, major 42, minor 43, 30 bytes).
    static let iBeacon = hex("0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e0002a002bc5")
    static let beaconer = BluetoothAddress(value: 0xC0FF_EE00_0001)

    /// A Complete Local Name structure of `n` letters: padding that no beacon decoder reads.
    static func name(_ n: Int) -> [UInt8] { [UInt8(n + 1), 0x09] + [UInt8](repeating: 0x41, count: n) }

    /// One legacy report, any data length (the encoder refuses over 31 bytes, as a transmitter must).
    static func legacyEvent(_ data: [UInt8], rssi: Int8 = -60) -> [UInt8] {
        var params: [UInt8] = [HCIEventParser.leAdvertisingReport, 1, 0x03, 0x01]
        params += beaconer.littleEndianBytes
        params.append(UInt8(data.count))
        params += data
        params.append(UInt8(bitPattern: rssi))
        return [HCIEventParser.leMetaEvent, UInt8(params.count)] + params
    }

    /// An extended report (non-connectable, non-scannable) with Data_Status `status` in Event_Type bits 5–6.
    static func fragment(_ data: ArraySlice<UInt8>, status: UInt16, address: BluetoothAddress = AdvertisingQuirksTests.beaconer,
                         sid: UInt8 = 1, rssi: Int = -70) -> HCIAdvertisingReport {
        HCIAdvertisingReport(format: .extended, eventType: status << 5, addressType: 1, address: address, rssi: rssi,
                             txPower: 0, sid: sid, data: data)
    }

    static func event(_ reports: HCIAdvertisingReport...) throws -> [UInt8] {
        try #require(HCIAdvertisingReport.leMetaEvent(reports))
    }

    static func majorMinor(_ s: BeaconSighting?) -> [UInt16]? {
        guard case let .iBeacon(_, major, minor)? = s?.identity else { return nil }
        return [major, minor]
    }

    // MARK: Legacy reports over 31 bytes

    @Test func legacyReportLongerThan31BytesIsDecodedAndCounted() throws {
        let data = Self.iBeacon + Self.name(10)  // 42 bytes
        let reports = try HCIEventParser.advertisingReports(inEvent: Self.legacyEvent(data))
        let r = try #require(reports.first)
        #expect(reports.count == 1 && r.data.count == 42 && r.rssi == -60 && r.isOversizedLegacy)

        var pipeline = BeaconScanPipeline(observer: "gw")
        let got = pipeline.sightings(hciEvent: Self.legacyEvent(data)[...], timestamp: Timestamp(seconds: 1))
        #expect(got.map(Self.majorMinor) == [[42, 43]])
        #expect(pipeline.statistics.oversizedLegacyReports == 1 && pipeline.statistics.malformedEvents == 0)
        // A report within the limit is no quirk.
        _ = pipeline.sightings(hciEvent: Self.legacyEvent(Self.iBeacon)[...], timestamp: Timestamp(seconds: 2))
        #expect(pipeline.statistics.oversizedLegacyReports == 1 && pipeline.statistics.beacons == 2)
    }

    @Test func theLongestLegacyReportAnEventHoldsIsAccepted() throws {
        // 255 parameter bytes: subevent, count, 9 fixed, 243 data, RSSI.
        let longest = Self.legacyEvent(Self.iBeacon + Self.name(211))
        #expect(longest[1] == 255)
        #expect(try HCIEventParser.advertisingReports(inEvent: longest).first?.data.count == 243)
    }

    // MARK: Extended reports in fragments

    @Test func fragmentsInConsecutiveEventsAreJoined() throws {
        // 232 bytes, more than one report carries: the iBeacon is only in the second half.
        let ad = Self.name(200) + Self.iBeacon
        let first = Self.fragment(ad[0..<200], status: 1, rssi: -80), last = Self.fragment(ad[200...], status: 0, rssi: -61)
        // Parsed alone (as before reassembly), neither fragment is a beacon.
        #expect(BeaconFrameDecoder().decode(first.data) == nil && BeaconFrameDecoder().decode(last.data) == nil)

        var pipeline = BeaconScanPipeline(observer: "gw")
        #expect(pipeline.sightings(hciEvent: try Self.event(first)[...], timestamp: Timestamp(seconds: 1)).isEmpty)
        let got = pipeline.sightings(hciEvent: try Self.event(last)[...], timestamp: Timestamp(seconds: 1.01))
        #expect(got.map(Self.majorMinor) == [[42, 43]])
        #expect(got.first?.rssi == -61, "the last fragment's RSSI")
        #expect(got.first?.address == "C0:FF:EE:00:00:01" && got.first?.timestamp == Timestamp(seconds: 1.01))
        let s = pipeline.statistics
        #expect(s.advertisements == 1 && s.reassembledAdvertisements == 1 && s.truncatedAdvertisements == 0)
        #expect(s.abandonedAdvertisements == 0)
    }

    @Test func fragmentsInOneEventAreJoined() throws {
        let ad = Self.name(100) + Self.iBeacon
        var pipeline = BeaconScanPipeline(observer: "gw")
        let e = try Self.event(Self.fragment(ad[0..<100], status: 1), Self.fragment(ad[100...], status: 0))
        #expect(pipeline.sightings(hciEvent: e[...], timestamp: Timestamp(seconds: 1)).map(Self.majorMinor) == [[42, 43]])
        #expect(pipeline.statistics.reassembledAdvertisements == 1)
    }

    @Test func aTruncatedAdvertisementIsDecodedFromWhatArrived() throws {
        let ad = Self.iBeacon + Self.name(200)
        var pipeline = BeaconScanPipeline(observer: "gw")
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(ad[0..<200], status: 1))[...], timestamp: Timestamp(seconds: 1))
        let got = pipeline.sightings(hciEvent: try Self.event(Self.fragment(ad[200..<210], status: 2))[...],
                                     timestamp: Timestamp(seconds: 1))
        #expect(got.map(Self.majorMinor) == [[42, 43]])
        #expect(pipeline.statistics.truncatedAdvertisements == 1 && pipeline.statistics.reassembledAdvertisements == 1)
        // Truncated with nothing before it: the report alone, still counted.
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(Self.iBeacon[...], status: 2))[...],
                               timestamp: Timestamp(seconds: 2))
        #expect(pipeline.statistics.truncatedAdvertisements == 2 && pipeline.statistics.beacons == 2)
    }

    @Test func anotherAdvertisersFragmentCutsThePendingChainOff() throws {
        let other = BluetoothAddress(value: 0x1122_3344_5566)
        var r = ExtendedReportReassembler()
        let first = r.add(Self.fragment(Self.name(50)[...], status: 1))
        let second = r.add(Self.fragment(Self.name(50)[...], status: 1, address: other))
        #expect(first == nil && second == nil)
        #expect(r.abandoned == 1)
        // Same address, another advertising set: also another advertisement.
        let third = r.add(Self.fragment(Self.name(50)[...], status: 1, address: other, sid: 2))
        #expect(third == nil)
        #expect(r.abandoned == 2)
        let doneAdded = r.add(Self.fragment(Self.iBeacon[...], status: 0, address: other, sid: 2))
        let done = try #require(doneAdded)
        #expect(done.fragments == 2 && !done.truncated && done.report.sid == 2)
        #expect(Array(done.report.data) == Self.name(50) + Self.iBeacon)
        #expect(!r.isPending)
    }

    @Test func anotherAdvertisersCompleteReportPassesWithoutDisturbingTheChain() throws {
        let other = BluetoothAddress(value: 0x1122_3344_5566)
        let ad = Self.name(100) + Self.iBeacon
        var r = ExtendedReportReassembler()
        let pending = r.add(Self.fragment(ad[0..<100], status: 1))
        #expect(pending == nil)
        let passingAdded = r.add(Self.fragment(Self.iBeacon[...], status: 0, address: other))
        let passing = try #require(passingAdded)
        #expect(passing.fragments == 1 && passing.report.address == other && Array(passing.report.data) == Self.iBeacon)
        let joinedAdded = r.add(Self.fragment(ad[100...], status: 0))
        let joined = try #require(joinedAdded)
        #expect(joined.fragments == 2 && Array(joined.report.data) == ad && r.abandoned == 0)
    }

    @Test func anAdvertisementOverTheMaximumIsCutAtItAndMarkedTruncated() throws {
        var r = ExtendedReportReassembler()
        let chunk = [UInt8](repeating: 0x41, count: 229)[...]
        for _ in 0..<7 {  // 1603 bytes
            let pending = r.add(Self.fragment(chunk, status: 1))
            #expect(pending == nil)
        }
        let doneAdded = r.add(Self.fragment(chunk, status: 0))
        let done = try #require(doneAdded)
        #expect(done.report.data.count == ExtendedReportReassembler.maximumAdvertisementLength)
        #expect(done.truncated && done.fragments == 8)
        // The buffer starts afresh: the next advertisement is whole again.
        let nextAdded = r.add(Self.fragment(Self.iBeacon[...], status: 0))
        let next = try #require(nextAdded)
        #expect(!next.truncated && Array(next.report.data) == Self.iBeacon)
    }

    @Test func legacyPDUsInExtendedReportsAreComplete() throws {
        var r = ExtendedReportReassembler()
        var legacy = Self.fragment(Self.iBeacon[...], status: 1)
        legacy.eventType |= 1 << 4  // legacy PDU: the data-status bits do not apply
        #expect(legacy.dataStatus == .complete)
        let passed = r.add(legacy)
        #expect(passed?.fragments == 1 && !r.isPending)
    }

    @Test func replayKeepsOneChainPerControllerAndCountsOneLeftUnfinished() throws {
        let ad = Self.name(200) + Self.iBeacon
        let w = BTSnoopWriter(datalink: .linuxMonitor)
        let t = Timestamp(seconds: 1_800_000_000)
        // hci0 and hci1 each hear the same advertisement, their fragments interleaved in the capture.
        try w.appendEvent(Self.event(Self.fragment(ad[0..<200], status: 1)), timestamp: t, controllerIndex: 0)
        try w.appendEvent(Self.event(Self.fragment(ad[0..<200], status: 1)), timestamp: t, controllerIndex: 1)
        try w.appendEvent(Self.event(Self.fragment(ad[200...], status: 0)), timestamp: t, controllerIndex: 0)
        try w.appendEvent(Self.event(Self.fragment(ad[200...], status: 0)), timestamp: t, controllerIndex: 1)
        // hci0 starts another and the capture ends.
        try w.appendEvent(Self.event(Self.fragment(ad[0..<200], status: 1)), timestamp: t, controllerIndex: 0)
        var pipeline = BeaconScanPipeline(observer: "gw")
        var got: [BeaconSighting] = []
        try pipeline.replay(BTSnoopReader(bytes: w.bytes), observerForAdapter: { "gw/\($0)" }) { got.append($0) }
        #expect(got.map(\.device) == ["gw/hci0", "gw/hci1"])
        #expect(got.map(Self.majorMinor) == [[42, 43], [42, 43]])
        #expect(pipeline.statistics.reassembledAdvertisements == 2 && pipeline.statistics.abandonedAdvertisements == 1)
    }

    // MARK: Metrics

    @Test func quirksAreCountedAsMetricsWithTheSourcesDimensions() throws {
        let metrics = TestMetrics()
        var pipeline = BeaconScanPipeline(
            observer: "gw", metrics: BeaconScanMetrics(dimensions: [("adapter", "hci0")], factory: metrics))
        let t = Timestamp(seconds: 1)
        let joined = Self.name(200) + Self.iBeacon
        _ = pipeline.sightings(hciEvent: Self.legacyEvent(Self.iBeacon + Self.name(3))[...], timestamp: t)
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(joined[0..<200], status: 1))[...], timestamp: t)
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(joined[200...], status: 0))[...], timestamp: t)
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(Self.iBeacon[...], status: 2))[...], timestamp: t)
        _ = pipeline.sightings(hciEvent: try Self.event(Self.fragment(Self.name(9)[...], status: 1))[...], timestamp: t)
        pipeline.finish()
        _ = pipeline.sightings(hciEvent: hex("3e0302")[...], timestamp: t)

        func quirk(_ name: String) throws -> Int64 {
            try metrics.expectCounter(BeaconScanMetrics.quirksLabel, [("adapter", "hci0"), ("quirk", name)]).totalValue
        }
        #expect(try quirk("oversized_legacy") == 1)
        #expect(try quirk("truncated") == 1)
        #expect(try quirk("abandoned") == 1)
        #expect(try metrics.expectCounter(BeaconScanMetrics.reassembledLabel, [("adapter", "hci0")]).totalValue == 1)
        #expect(try metrics.expectCounter(BeaconScanMetrics.malformedLabel, [("adapter", "hci0")]).totalValue == 1)
        #expect(pipeline.statistics.beacons == 3)
    }
}
