import Host
import EngineLog
import Journal
import TestSupport
import Testing
import TriggerEngine

/// Every input kind survives the journal's encoding exactly, and a damaged record is refused with its position.
@Suite struct HostRecordTests {
    @Test func everyInputKindRoundTrips() throws {
        let uuid = UUID128(string: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        let t = Timestamp(microseconds: 1_760_000_000_123_456)
        let inputs: [HostInput] = [
            .requests(json: CrashRestoreTestsJSON.sample),
            .remove(identifiers: ["a", "b/ü", ""]),
            .removeAll,
            .fixes([LocationFix(device: "d", timestamp: t, latitude: 52.5, longitude: 13.4),
                    LocationFix(device: "é", timestamp: t, latitude: -0.0, longitude: 180, horizontalAccuracy: 5, altitude: -3,
                                speed: 0, course: 359.5)]),
            .sightings([BeaconSighting(device: "gw", timestamp: t, identity: .iBeacon(uuid: uuid, major: 1, minor: 65535), rssi: -70,
                                       txPower: -59, address: "AA:BB:CC:DD:EE:FF",
                                       telemetry: BeaconTelemetry(url: "https://x", batteryMilliVolts: 3000, temperatureCelsius: 21.5,
                                                                  advertisementCount: 7, uptimeSeconds: 10, ephemeralId: "ab"),
                                       proximity: .near, distance: 1.5),
                        BeaconSighting(device: "gw", timestamp: t, identity: .eddystoneUID(namespace: EddystoneNamespace(hex: "00112233445566778899")!,
                                                                                            instance: EddystoneInstance(hex: "aabbccddeeff")!),
                                       rssi: nil, txPower: nil),
                        BeaconSighting(device: "gw", timestamp: t, identity: .altBeacon(id1: uuid, id2: 2, id3: 3), rssi: -90, txPower: nil),
                        BeaconSighting(device: "gw", timestamp: t, identity: nil, rssi: nil, txPower: nil)]),
            .clock(t),
            .observerStarted(device: "gw", at: t),
            .observerListening(device: "gw", at: t),
        ]
        var w = ByteWriter()
        for (k, input) in inputs.enumerated() {
            let notifications = [RecordedNotification(deliveryId: "r/d/1-\(k)", identifier: "r", device: "d", firedAt: t, json: #"{"x":1}"#)]
            let record = HostRecord(input: input, notifications: k % 2 == 0 ? notifications : [])
            let decoded = try HostRecord(record.journalRecord(using: &w), position: UInt64(k))
            #expect(decoded == record)
        }
    }

    /// A batch of fixes with devices of every length (a short string kept inline, a long one on the heap,
    /// non-ASCII, empty) and every mix of optional fields round-trips, each fix taking exactly its fields' bytes.
    @Test func fixBatchesRoundTripWithExactSizes() throws {
        var rng = SplitMix(seed: 13)
        let devices = ["", "d", "ü-gerät", "a-device-name-longer-than-fifteen-bytes", String(repeating: "x", count: 300)]
        var fixes: [LocationFix] = []
        var expectedBytes = 4
        for k in 0..<2_000 {
            let device = devices[k % devices.count]
            var f = LocationFix(device: device, timestamp: Timestamp(microseconds: Int64(rng.next() >> 2)),
                                latitude: rng.double(-90, 90), longitude: rng.double(-180, 180))
            let bits = rng.next()
            if bits & 1 != 0 { f.horizontalAccuracy = rng.double(0, 100) }
            if bits & 2 != 0 { f.altitude = rng.double(-400, 9000) }
            if bits & 4 != 0 { f.speed = rng.double(0, 80) }
            if bits & 8 != 0 { f.course = rng.double(0, 360) }
            fixes.append(f)
            expectedBytes += 4 + device.utf8.count + 8 + 16 + 1 + 8 * (bits & 15).nonzeroBitCount
        }
        var w = ByteWriter()
        let record = HostRecord(input: .fixes(fixes), notifications: [])
        let encoded = record.journalRecord(using: &w)
        #expect(encoded.payload.count == expectedBytes + 4)  // and the notifications' count
        #expect(try HostRecord(encoded, position: 7) == record)
    }

    @Test func damagedRecordsAreRefusedWithTheirPosition() {
        var w = ByteWriter()
        let record = HostRecord(input: .fixes([LocationFix(device: "d", timestamp: .distantPast, latitude: 1, longitude: 2)])).journalRecord(using: &w)
        for cut in 0..<record.payload.count {
            let short = JournalRecord(kind: record.kind, payload: Array(record.payload[0..<cut]))
            #expect(throws: HostRecordError.self) { try HostRecord(short, position: 42) }
        }
        #expect(throws: HostRecordError(position: 9, reason: "unknown record kind 200")) {
            try HostRecord(JournalRecord(kind: 200, payload: []), position: 9)
        }
        // A huge count in a short record is refused without allocating for it.
        var huge = record
        huge.payload.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: HostRecordError.self) { try HostRecord(huge, position: 1) }
    }
}

enum CrashRestoreTestsJSON {
    static let sample = #"[{"identifier":"a","content":{"title":"A"},"trigger":{"region":{"type":"circle","id":"a","center":{"latitude":1,"longitude":2},"radius":10}}}]"#
}
