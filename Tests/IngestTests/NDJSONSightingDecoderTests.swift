import Ingest
import Testing
import TriggerEngine

@Suite struct NDJSONSightingDecoderTests {
    let decoder = NDJSONSightingDecoder(source: "sightings.ndjson")

    func run(_ text: String, chunkSize: Int? = nil, decoder: NDJSONSightingDecoder? = nil)
        -> ([BeaconSighting], [IngestError])
    {
        var d = decoder ?? self.decoder
        var sightings: [BeaconSighting] = []
        var errors: [IngestError] = []
        let bytes = Array(text.utf8)
        let size = max(1, chunkSize ?? max(bytes.count, 1))
        var start = 0
        bytes.withUnsafeBytes { all in
            repeat {
                let end = min(start + size, all.count)
                d.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]), onRecord: { sightings.append($0) },
                         onError: { errors.append($0) })
                start = end
            } while start < all.count
        }
        d.finish(onRecord: { sightings.append($0) }, onError: { errors.append($0) })
        return (sightings, errors)
    }

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    @Test func iBeaconAltBeaconAndEddystoneIdentitiesAreRead() throws {
        let (s, errors) = run("""
            {"device":"gw-1","timestamp":"2026-11-20T08:15:02Z","uuid":"\(Self.uuid)","major":1,"minor":2,"rssi":-60,"txPower":-59,"address":"aa:bb:cc:dd:ee:0f"}
            {"device":"gw-1","timestamp":1795162502,"type":"altbeacon","id1":"\(Self.uuid)","id2":3,"id3":4,"rssi":-70}
            {"device":"gw-2","timestamp":1795162502000,"identity":{"namespace":"00112233445566778899","instance":"aabbccddeeff"},"rssi":-80,"txPower":-20}
            """)
        #expect(errors.isEmpty)
        #expect(s.count == 3)
        let u = try #require(UUID128(string: Self.uuid))
        #expect(s.map(\.identity) == [
            .iBeacon(uuid: u, major: 1, minor: 2), .altBeacon(id1: u, id2: 3, id3: 4),
            .eddystoneUID(namespace: EddystoneNamespace(hex: "00112233445566778899")!,
                          instance: EddystoneInstance(hex: "aabbccddeeff")!),
        ])
        #expect(s[0].address == "AA:BB:CC:DD:EE:0F" && s[0].rssi == -60 && s[0].txPower == -59)
        #expect(s[1].txPower == nil && s[2].device == "gw-2")
        #expect(s.allSatisfy { $0.proximity == .unknown && $0.timestamp == ts("2026-11-20T08:15:02Z") })
    }

    @Test(arguments: [
        (#"{"device":"g","timestamp":1,"uuid":"not-a-uuid","major":1,"minor":2}"#, "invalid-identity", "uuid" as String?),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","major":70000,"minor":2}"#, "invalid-identity", "major"),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","minor":2}"#, "missing-field", "major"),
        (#"{"device":"g","timestamp":1,"namespace":"0011","instance":"aabbccddeeff"}"#, "invalid-identity", "namespace"),
        (#"{"device":"g","timestamp":1,"rssi":-60}"#, "invalid-identity", "identity"),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","major":1,"minor":2,"rssi":-300}"#, "invalid-beacon-field", "rssi"),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","major":1,"minor":2,"rssi":"-60"}"#, "wrong-type", "rssi"),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","major":1,"minor":2,"address":"aa:bb"}"#, "invalid-beacon-field",
         "address"),
        (#"{"timestamp":1,"uuid":"\#(uuid)","major":1,"minor":2}"#, "missing-device", "device"),
        (#"{"device":"g","timestamp":"soon","uuid":"\#(uuid)","major":1,"minor":2}"#, "invalid-timestamp", "timestamp"),
        (#"{"device":"g","timestamp":1,"uuid":"\#(uuid)","major":1,"minor":2"#, "malformed-json", nil),
    ])
    func everyBadLineIsOneErrorWithKindAndField(text: String, kind: String, field: String?) throws {
        let (s, errors) = run("\n" + text + "\n")
        #expect(s.isEmpty)
        let e = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(e.kind == kind)
        #expect(e.field == field)
        #expect(e.line == 2)
    }

    @Test func missingDeviceTakesTheDefaultDevice() {
        let (s, _) = run(#"{"timestamp":1,"uuid":"\#(Self.uuid)","major":1,"minor":2}"#,
                         decoder: NDJSONSightingDecoder(source: "gw7.ndjson", defaultDevice: "gw7"))
        #expect(s.map(\.device) == ["gw7"])
    }

    @Test(arguments: chunkings)
    func chunkBoundariesDoNotChangeTheOutput(chunkSize: Int?) {
        let text = """
            {"device":"gw-1","timestamp":1,"uuid":"\(Self.uuid)","major":1,"minor":2,"rssi":-60}\r
            broken
            {"device":"gw-\\u00e9","timestamp":2,"identity":{"type":"altbeacon","id1":"\(Self.uuid)","id2":3,"id3":4}}
            """
        let whole = run(text)
        #expect(whole.0.count == 2 && whole.1.map(\.kind) == ["malformed-json"])
        let split = run(text, chunkSize: chunkSize)
        #expect(split.0 == whole.0 && split.1 == whole.1)
    }
}
