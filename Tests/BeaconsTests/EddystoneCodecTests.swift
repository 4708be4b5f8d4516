import Testing
import TriggerEngine
@testable import Beacons

/// Eddystone-URL compression both ways and the TLM frame layout (eddystone-codec-vectors.json, from AltBeacon).
@Suite struct EddystoneCodecTests {
    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func urlCodecVectorsBothWays() throws {
        let cases = try #require(try BeaconData.json("beacons/eddystone-codec-vectors.json")["urlCodec"]?.arrayValue)
        #expect(cases.count == 27)
        for c in cases {
            let url = try #require(c["url"]?.stringValue)
            let bytes = try #require(c["encodedHex"]?.stringValue.flatMap(hexBytes))
            let name = c["source"]?.stringValue ?? url
            switch c["direction"]?.stringValue {
            case "compress":
                #expect(EddystoneURL.compress(url) == bytes, "\(name)")
                // Expansion gives the URL with scheme and host lower-cased, which compresses back to the same bytes.
                let expanded = try #require(EddystoneURL.expand(bytes), "\(name)")
                #expect(EddystoneURL.compress(expanded) == bytes, "\(name)")
            case "uncompress":
                #expect(EddystoneURL.expand(bytes) == url, "\(name)")
                #expect(EddystoneURL.compress(url) == bytes, "\(name)")
            default:
                Issue.record("unknown direction in \(name)")
            }
        }
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func tlmFrameVector() throws {
        let c = try #require(try BeaconData.json("beacons/eddystone-codec-vectors.json")["tlmFrame"]?.arrayValue?.first)
        let bytes = try #require(c["frameHex"]?.stringValue.flatMap(hexBytes))
        let f = try #require(c["fields"])
        let tlm = try #require(EddystoneTLM(frame: bytes[...]))
        func n(_ k: String) -> Int? { f[k]?.doubleValue.map(Int.init) }
        #expect(Int(tlm.version) == n("version"))
        #expect(Int(tlm.batteryMilliVolts) == n("vbatt"))
        #expect(Int(tlm.temperatureRaw) == n("temp"))
        #expect(Int(tlm.advertisementCount) == n("advCnt"))
        #expect(Int(tlm.uptimeTenths) == n("secCnt"))
        #expect(tlm.frameBytes == bytes)
        #expect(tlm.temperatureCelsius == 787.0 / 256)
    }

    @Test func reservedBytesAndUnknownSchemesAreNotExpanded() {
        #expect(EddystoneURL.expand([0x04, 0x61]) == nil)
        #expect(EddystoneURL.expand([0x02, 0x0E]) == nil)
        #expect(EddystoneURL.expand([0x02, 0x20]) == nil)
        #expect(EddystoneURL.expand([0x02, 0x7F]) == nil)
        #expect(EddystoneURL.expand([]) == nil)
        #expect(EddystoneURL.expand([0x03]) == "https://")
    }

    @Test func compressionRejectsWhatTheEncodingCannotCarry() {
        #expect(EddystoneURL.compress("ftp://example.com") == nil)
        #expect(EddystoneURL.compress("http://exa mple.com") == nil)
        #expect(EddystoneURL.compress("http://example.com/\u{e9}") == nil)
        #expect(EddystoneURL.compress("https://example.org/a") == [0x03] + Array("example".utf8) + [0x01, 0x61])
    }
}
