import Testing
import TriggerEngine
@testable import Beacons

/// The decode oracle: every `kind: ad` vector of beacon-vectors.json (beacontools + AltBeacon unit tests).
@Suite(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
struct BeaconFrameDecoderTests {
    static let supported: Set<String> = ["ibeacon", "altbeacon", "eddystone-uid", "eddystone-url", "eddystone-tlm", "eddystone-eid"]

    /// Frame types we deliberately do not decode, and why. These must give no identity and must not crash.
    static let notDecoded: [String: String] = [
        "eddystone-etlm": "encrypted TLM (version 0x01): needs the beacon's identity key, out of scope",
        "estimote-telemetry-a": "Estimote proprietary telemetry, not in SPEC §2",
        "estimote-telemetry-b": "Estimote proprietary telemetry, not in SPEC §2",
        "estimote-nearable": "Estimote proprietary sticker frame, not in SPEC §2",
        "exposure-notification": "COVID exposure notification: rotating ids, no stable identity to trigger on",
        "cj-monitor": "CJ sensor monitor, proprietary, not in SPEC §2",
        "uribeacon": "UriBeacon (0xFED8), superseded by Eddystone-URL",
        "service-data-beacon": "custom AltBeacon layouts on arbitrary service UUIDs (0x1234, 0xFD6F); no standard format",
        "overflow-area-beacon": "iOS background 'overflow area' advert: Apple private, not an iBeacon",
        "sbeacon": "custom layout defined inside an AltBeacon test",
    ]

    /// Vectors whose upstream expectation depends on an AltBeacon parser configuration rather than on the bytes,
    /// with what we assert instead.
    static let layoutArtifacts: [Int: String] = [
        40: "TLM version byte is 0x01 (encrypted eTLM per the Eddystone spec); AltBeacon's layout ignores the version. We decode no frame, but check the raw fields with EddystoneTLM.",
        41: "little-endian custom split of the 20 identifier bytes (i:4-9,i:10-15l,i:16-23); we decode the standard AltBeacon split and check the same 20 bytes.",
        42: "same custom layout as 41; re-encoding is checked on the standard split.",
        44: "null only because the layout has a fixed 17-byte identifier (i:4-20, overflow disallowed); the bytes are a valid Eddystone-URL frame, which we decode to http://google.com/ (telemetry only, no identity).",
        45: "AltBeacon reports the raw identifier bytes; we check the expanded URL of those same bytes.",
        59: "null only for CBeacon's service-data layout; the bytes are the AltBeacon of vector 32 and decode as such.",
    ]

    /// The AltBeacon code a vector's layout string matches (`m:2-3=beac`, `m:0-3=1801beac`), so vectors made with a
    /// custom `setMatchingBeaconTypeCode` decode with the same configuration.
    /// AltBeacon's vectors are Android scan records (advertising data, then the scan response at offset 31).
    func ad(_ v: BeaconData.Vector) -> AdvertisingData {
        v.json["source"]?.stringValue?.hasPrefix("AltBeacon") == true ? AdvertisingData(scanRecord: v.bytes) : AdvertisingData(v.bytes)
    }

    func decoder(for v: BeaconData.Vector) -> BeaconFrameDecoder {
        guard let layout = v.expect["layout"]?.stringValue, layout.hasPrefix("m:"),
            let eq = layout.firstIndex(of: "="), let comma = layout.firstIndex(of: ",")
        else { return BeaconFrameDecoder() }
        let code = layout[layout.index(after: eq)..<comma].suffix(4)
        return BeaconFrameDecoder(altBeaconCodes: UInt16(code, radix: 16).map { [$0] } ?? [0xBEAC])
    }

    @Test func everySupportedVectorDecodesToExactlyTheExpectedFields() throws {
        var checked = 0
        for v in try BeaconData.vectors() where v.kind == "ad" {
            guard let type = v.frameType, Self.supported.contains(type), Self.layoutArtifacts[v.index] == nil else { continue }
            let frame = decoder(for: v).decode(ad(v))
            try #require(frame != nil, "\(v) did not decode")
            guard let frame else { continue }
            #expect(frame.kind.rawValue == type, "\(v)")
            let unhandled = check(frame, against: v)
            #expect(unhandled.isEmpty, "\(v): expectation keys not checked: \(unhandled)")
            checked += 1
        }
        #expect(checked == 17)
    }

    /// Compares every `expect` key; returns the keys it did not know (so none can be silently skipped).
    func check(_ f: BeaconFrame, against v: BeaconData.Vector) -> [String] {
        let e = v.expect
        let fromAltBeacon = e["layout"] != nil
        var unhandled: [String] = []
        for (key, value) in e.objectValue ?? [] {
            let n = value.doubleValue.map { Int($0) }
            switch key {
            case "frameType", "layout", "alsoIn":
                continue
            case "parsed":
                #expect(value.boolValue == true, "\(v)")
            case "uuid":
                if case let .iBeacon(uuid, _, _)? = f.identity { #expect(uuid.description == value.stringValue, "\(v)") } else {
                    Issue.record("\(v): no iBeacon identity")
                }
            case "major", "minor":
                if case let .iBeacon(_, major, minor)? = f.identity { #expect(Int(key == "major" ? major : minor) == n, "\(v)") } else {
                    Issue.record("\(v): no iBeacon identity")
                }
            case "txPower":
                // beacontools reports Eddystone's raw 0 m ranging data; AltBeacon's layouts already subtract 41.
                if f.rangingPower != nil && !fromAltBeacon {
                    #expect(f.rangingPower == n, "\(v)")
                    #expect(f.txPower == n.map { $0 - BeaconFrame.eddystoneRangingOffset }, "\(v)")
                } else {
                    #expect(f.txPower == n, "\(v)")
                }
            case "namespace", "instance":
                if case let .eddystoneUID(ns, inst)? = f.identity {
                    #expect((key == "namespace" ? ns.description : inst.description) == value.stringValue, "\(v)")
                } else {
                    Issue.record("\(v): no Eddystone-UID identity")
                }
            case "url":
                #expect(f.telemetry?.url == value.stringValue, "\(v)")
            case "eid":
                #expect(f.telemetry?.ephemeralId == value.stringValue, "\(v)")
            case "tlm":
                #expect(f.tlm?.batteryMilliVolts == value["vbattMilliVolts"]?.doubleValue.map { UInt16($0) }, "\(v)")
                #expect(f.telemetry?.batteryMilliVolts == value["vbattMilliVolts"]?.doubleValue.map { Int($0) }, "\(v)")
                #expect(f.telemetry?.temperatureCelsius == value["temperatureC"]?.doubleValue, "\(v)")
                #expect(f.tlm?.advertisementCount == value["advCnt"]?.doubleValue.map { UInt32($0) }, "\(v)")
                #expect(f.tlm?.uptimeTenths == value["secCnt"]?.doubleValue.map { UInt32($0) }, "\(v)")
                #expect(f.telemetry?.uptimeSeconds == value["secCnt"]?.doubleValue.map { $0 / 10 }, "\(v)")
                #expect(f.identity == nil, "\(v)")
            case "id1", "id2", "id3":
                guard case let .altBeacon(id1, id2, id3)? = f.identity else { Issue.record("\(v): no AltBeacon identity"); continue }
                let text = key == "id1" ? id1.description : String(key == "id2" ? id2 : id3)
                #expect(text == value.stringValue, "\(v) \(key)")
            case "manufacturer":
                #expect(f.manufacturerId.map(Int.init) == n, "\(v)")
            case "mfgReserved":
                #expect(f.altBeaconReserved.map(Int.init) == n, "\(v)")
            case "dataFieldCount":
                #expect((f.altBeaconReserved == nil ? 0 : 1) == n, "\(v)")
            case "dataFields":
                // AltBeacon reads a data field past the end of the PDU as 0; we report it as absent.
                #expect(value.arrayValue?.map { $0.doubleValue } == [0], "\(v)")
                #expect(f.altBeaconReserved == nil, "\(v)")
            case "reencodedBeaconBytes":
                let code = decoder(for: v).altBeaconCodes.first ?? 0xBEAC
                #expect(f.beaconPayload(altBeaconCode: code) == value.stringValue.flatMap(hexBytes), "\(v)")
            case "cypressTemperatureC", "cypressHumidityPercent":
                // Cypress CYALKIT-E02 packs humidity (high byte) and temperature (low byte) into the minor;
                // we pass the minor through and check it reproduces upstream's values.
                guard case let .iBeacon(_, _, minor)? = f.identity, let want = value.doubleValue else { continue }
                let got = key == "cypressTemperatureC" ? 175.72 * Double(minor & 0xFF) / 256 - 46.85
                    : 125 * Double(minor >> 8) / 256 - 6
                #expect(abs(got - want) < 1e-9, "\(v) \(key)")
            default:
                unhandled.append(key)
            }
        }
        return unhandled
    }

    @Test func theThirteenNoBeaconVectorsDecodeToNothing() throws {
        let nulls = try BeaconData.vectors().filter { $0.expect["frameType"]?.isNull == true }
        #expect(nulls.count == 13)
        for v in nulls {
            if v.kind == "hci_event" {
                // 30, 31: truncated hand-made events; HCIEventParserTests checks they are rejected.
                #expect(throws: HCIEventError.self, "\(v)") { try HCIEventParser.advertisingReports(inPacket: v.bytes) }
                continue
            }
            let frame = decoder(for: v).decode(ad(v))
            switch v.index {
            case 44:
                #expect(frame?.kind == .eddystoneURL && frame?.identity == nil, "\(v)")
                #expect(frame?.telemetry?.url == "http://google.com/", "\(v)")
            case 59:
                #expect(frame?.kind == .altBeacon, "\(v)")
            default:
                #expect(frame == nil, "\(v): decoded as \(String(describing: frame))")
            }
        }
    }

    @Test func vectorsOfTypesWeDoNotDecodeGiveNoIdentity() throws {
        var seen: Set<String> = []
        for v in try BeaconData.vectors() {
            guard let type = v.frameType, !Self.supported.contains(type) else { continue }
            let reason = try #require(Self.notDecoded[type], "\(v): frame type \(type) is neither supported nor listed")
            seen.insert(type)
            let ad: ArraySlice<UInt8>
            if v.kind == "hci_event" {
                // Valid events are parsed; hand-made ones are repaired first (see HCIEventParserTests).
                let packet = v.bytes.first == 0x04 ? v.bytes : HCIEventParserTests.repaired(v.bytes)
                let reports = try HCIEventParser.advertisingReports(inPacket: packet)
                ad = try #require(reports.first).data
            } else {
                ad = v.bytes[...]
            }
            let frame = BeaconFrameDecoder().decode(AdvertisingData(scanRecord: ad))
            #expect(frame?.identity == nil, "\(v): \(reason)")
            #expect(frame == nil, "\(v): \(reason)")
        }
        #expect(seen == Set(Self.notDecoded.keys))
    }

    @Test func customAltBeaconCodeIsOnlyAcceptedWhenConfigured() throws {
        let v = try #require(try BeaconData.vectors().first { $0.index == 34 })
        #expect(BeaconFrameDecoder().decode(v.bytes) == nil)
        #expect(BeaconFrameDecoder(altBeaconCodes: [0xAABB]).decode(v.bytes)?.kind == .altBeacon)
    }

    @Test func tlmVersionOneIsEncryptedSoNotDecodedButItsFieldsReadRaw() throws {
        // Vector 40 (AltBeacon testReEncodesBeaconForEddystoneTelemetry): service data claims 0x15 bytes, 17 follow.
        let v = try #require(try BeaconData.vectors().first { $0.index == 40 })
        #expect(BeaconFrameDecoder().decode(v.bytes) == nil)
        let service = try #require(AdvertisingData(v.bytes).first(ofType: 0x16))
        #expect(service.isTruncated)
        let tlm = try #require(EddystoneTLM(frame: service.data.dropFirst(2)))
        let want = try #require(v.expect["tlm"])
        #expect(Int(tlm.version) == want["version"]?.doubleValue.map(Int.init))
        #expect(Int(tlm.batteryMilliVolts) == want["vbatt"]?.doubleValue.map(Int.init))
        #expect(Int(tlm.temperatureRaw) == want["temp"]?.doubleValue.map(Int.init))
        #expect(Int(tlm.advertisementCount) == want["advCnt"]?.doubleValue.map(Int.init))
        #expect(Int(tlm.uptimeTenths) == want["secCnt"]?.doubleValue.map(Int.init))
        #expect(tlm.frameBytes == v.expect["reencodedBeaconBytes"]?.stringValue.flatMap(hexBytes))
    }

    @Test func littleEndianLayoutCoversTheSameTwentyIdentifierBytes() throws {
        // Vector 41: AltBeacon splits bytes 4...23 as 6 + 6 (little-endian) + 8; the standard split is 16 + 2 + 2.
        let v = try #require(try BeaconData.vectors().first { $0.index == 41 })
        let f = try #require(BeaconFrameDecoder().decode(v.bytes))
        guard case let .altBeacon(id1, id2, id3)? = f.identity else { Issue.record("not AltBeacon"); return }
        let ours = id1.bytes + [UInt8(id2 >> 8), UInt8(id2 & 0xFF), UInt8(id3 >> 8), UInt8(id3 & 0xFF)]
        let e = v.expect
        let theirs = hex(String(e["id1"]!.stringValue!.dropFirst(2))) + hex(String(e["id2"]!.stringValue!.dropFirst(2))).reversed()
            + hex(String(e["id3"]!.stringValue!.dropFirst(2)))
        #expect(ours == theirs)
        #expect(f.txPower == e["txPower"]?.doubleValue.map(Int.init))
        #expect(f.manufacturerId.map(Int.init) == e["manufacturer"]?.doubleValue.map(Int.init))
        // Vector 42: the same bytes without padding re-encode from offset 7.
        let v42 = try #require(try BeaconData.vectors().first { $0.index == 42 })
        let f42 = try #require(BeaconFrameDecoder().decode(v42.bytes))
        #expect(f42.beaconPayload() == Array(v42.bytes[7...]))
    }

    @Test func longUrlIdentifierExpandsFromTheSameBytes() throws {
        // Vector 45: id1 = 0x0102030405060708 = scheme 0x01 then expansion codes 0x02...0x08.
        let v = try #require(try BeaconData.vectors().first { $0.index == 45 })
        let f = try #require(BeaconFrameDecoder().decode(v.bytes))
        #expect(f.kind == .eddystoneURL && f.identity == nil)
        #expect(f.telemetry?.url == "https://www..edu/.net/.info/.biz/.gov/.com.org")
        #expect(EddystoneURL.expand(hex("0102030405060708")) == f.telemetry?.url)
        #expect(f.txPower == -25 - 41 && f.rangingPower == -25)
    }
}
