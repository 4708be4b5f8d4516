import Testing
import TriggerEngine
@testable import Beacons

/// AltBeacon's Region.matchesBeacon() truth table against TriggerEngine's BeaconRegion.matches.
///
/// AltBeacon identifiers are typed values with null wildcards and any count; BeaconRegion has a mandatory proximity
/// UUID (or Eddystone namespace) and optional major/minor, and beacon identities always have three parts. Cases map
/// as: id1 integer n → UUID128(high: 0, low: n); id2/id3 → major/minor. Cases that need a wildcard id1, a beacon
/// with fewer than three identifiers, or a MAC-address region cannot be expressed and are listed, not tested.
@Suite(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
struct RegionMatchTests {
    static let inexpressible: [String: String] = [
        "testBeaconMatchesRegionWithSingleNullIdentifierList": "region id1 wildcard: BeaconRegion requires a UUID",
        "testBeaconDoesntMatchRegionWithLongerIdentifierList": "beacon with two identifiers: identities always have three",
        "testBeaconDoesMatchRegionWithLongerIdentifierListWithSomeNull": "two-identifier beacon and id1 wildcard",
        "testBeaconMatchesRegionWithSameBluetoothMac": "MAC-address regions are not in SPEC §1",
        "testBeaconDoesNotMatchRegionWithDiffrentBluetoothMac": "MAC-address regions are not in SPEC §1",
        "testBeaconMatchesRegionWithSameBluetoothMacAndIdentifiers": "MAC-address regions are not in SPEC §1",
    ]

    @Test func truthTable() throws {
        let cases = try #require(try BeaconData.json("beacons/region-match-cases.json")["cases"]?.arrayValue)
        var tested = 0, listed = 0
        for c in cases {
            let name = String((c["source"]?.stringValue ?? "").split(separator: ":").last ?? "")
            if Self.inexpressible[name] != nil { listed += 1; continue }
            let beaconIds = (c["beaconIdentifiers"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { UInt64($0) } }
            let regionIds = (c["regionIdentifiers"]?.arrayValue ?? []).map { $0.stringValue.flatMap { UInt64($0) } }
            try #require(beaconIds.count == 3 && c["regionBluetoothAddress"]?.isNull == true, "\(name)")
            let id1 = try #require(regionIds.first ?? nil, "\(name)")
            let region = BeaconRegion(identifier: .uuid(UUID128(high: 0, low: id1),
                                                        major: regionIds.count > 1 ? regionIds[1].map { UInt16($0) } : nil,
                                                        minor: regionIds.count > 2 ? regionIds[2].map { UInt16($0) } : nil))
            let u = UUID128(high: 0, low: beaconIds[0])
            let want = c["expectMatch"]?.boolValue
            #expect(region.matches(.iBeacon(uuid: u, major: UInt16(beaconIds[1]), minor: UInt16(beaconIds[2]))) == want, "\(name)")
            // AltBeacon's Region matches any beacon type with the same identifiers; so does BeaconRegion.
            #expect(region.matches(.altBeacon(id1: u, id2: UInt16(beaconIds[1]), id3: UInt16(beaconIds[2]))) == want, "\(name)")
            tested += 1
        }
        #expect(tested == 5 && listed == Self.inexpressible.count)
    }

    @Test func eddystoneUIDRegionsMatchDecodedFrames() throws {
        let v = try #require(try BeaconData.vectors().first { $0.index == 5 })
        let id = try #require(BeaconFrameDecoder().decode(v.bytes)?.identity)
        let ns = try #require(EddystoneNamespace(hex: "12345678901234678901"))
        #expect(BeaconRegion(identifier: .eddystone(namespace: ns, instance: nil)).matches(id))
        #expect(BeaconRegion(identifier: .eddystone(namespace: ns, instance: EddystoneInstance(value: 1))).matches(id))
        #expect(!BeaconRegion(identifier: .eddystone(namespace: ns, instance: EddystoneInstance(value: 2))).matches(id))
        #expect(!BeaconRegion(identifier: .uuid(UUID128(high: 0, low: 0), major: nil, minor: nil)).matches(id))
    }
}
