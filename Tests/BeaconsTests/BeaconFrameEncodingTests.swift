import Testing
import TriggerEngine
@testable import Beacons

/// Encoding frames to advertising data (tests, benchmark captures, advertisers) and reading them back.
@Suite struct BeaconFrameEncodingTests {
    @Test func encodedFramesDecodeBackToTheSameFrame() throws {
        let uuid = try #require(UUID128(string: "e2c56db5-dffb-48d2-b060-d0f5a71096e0"))
        let frames = [
            BeaconFrame(kind: .iBeacon, identity: .iBeacon(uuid: uuid, major: 1, minor: 65535), txPower: -59, manufacturerId: 0x004C),
            BeaconFrame(kind: .altBeacon, identity: .altBeacon(id1: uuid, id2: 7, id3: 8), txPower: -60, manufacturerId: 0x0118,
                        altBeaconReserved: 9),
            BeaconFrame(kind: .eddystoneUID, identity: .eddystoneUID(namespace: EddystoneNamespace(hex: "12345678901234678901")!,
                                                                     instance: EddystoneInstance(value: 1)),
                        txPower: -70, rangingPower: -29),
            BeaconFrame(kind: .eddystoneURL, telemetry: BeaconTelemetry(url: "https://github.com/citruz"), txPower: -49, rangingPower: -8),
        ]
        for f in frames {
            let ad = try #require(f.advertisingData(), "\(f.kind)")
            #expect(BeaconFrameDecoder().decode(ad) == f, "\(f.kind)")
        }
        let tlm = EddystoneTLM(batteryMilliVolts: 2840, temperatureRaw: -128, advertisementCount: 5223, uptimeTenths: 10948)
        let f = try #require(BeaconFrameDecoder().decode(BeaconFrame(kind: .eddystoneTLM, tlm: tlm).advertisingData()!))
        #expect(f.tlm == tlm && f.telemetry?.temperatureCelsius == -0.5)
    }

    @Test func tlmNotSupportedValuesBecomeNil() {
        let tlm = EddystoneTLM(batteryMilliVolts: 0, temperatureRaw: Int16.min, advertisementCount: 1, uptimeTenths: 5)
        #expect(tlm.telemetry.batteryMilliVolts == nil)
        #expect(tlm.telemetry.temperatureCelsius == nil)
        #expect(tlm.telemetry.uptimeSeconds == 0.5)
    }

    /// Hand-made frames per the Eddystone and AltBeacon specifications, so the decoder is covered without shared data.
    @Test func specFramesDecodeWithoutSharedData() throws {
        let d = BeaconFrameDecoder()
        // Eddystone-UID without the two RFU bytes (AltBeacon's own vectors omit them).
        let uid = try #require(d.decode(hex("0303aafe1516aafe00e700010203040506070809010203040506")))
        #expect(uid.identity == .eddystoneUID(namespace: EddystoneNamespace(hex: "00010203040506070809")!,
                                              instance: EddystoneInstance(hex: "010203040506")!))
        #expect(uid.rangingPower == -25 && uid.txPower == -66)
        // Eddystone-EID.
        let eid = try #require(d.decode(hex("0d16aafe30f60102030405060708")))
        #expect(eid.kind == .eddystoneEID && eid.identity == nil && eid.telemetry?.ephemeralId == "0102030405060708")
        // Encrypted TLM (version 0x01, 18 bytes) is not decoded; plain TLM one byte short is not either.
        #expect(d.decode(hex("1516aafe2001414141414141414141414141deadbeff")) == nil)
        #expect(d.decode(hex("1016aafe20000b18130000001467000002")) == nil)
        // AltBeacon with an arbitrary company id; iBeacon needs Apple's.
        #expect(d.decode(hex("1bffffffbeac" + String(repeating: "11", count: 16) + "00010002c500"))?.manufacturerId == 0xFFFF)
        #expect(d.decode(hex("1aff4d000215" + String(repeating: "11", count: 16) + "00010002c5")) == nil)
        // One byte short of an iBeacon.
        #expect(d.decode(hex("19ff4c000215" + String(repeating: "11", count: 16) + "00010002")) == nil)
    }
}
