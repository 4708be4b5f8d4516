import Geometry
import TestSupport
import Testing
@testable import TriggerEngine

/// The service's queries against brute force: nearby by geodesic distance (across the antimeridian and near a
/// pole too), region occupants as every device's memberships, paging that visits each live device once.
@Suite struct QueryTests {
    static var keeping: TriggerEngine.Configuration {
        var c = TriggerEngine.Configuration()
        c.keepsLastPosition = true
        c.tracksOccupants = true
        return c
    }

    @Test func nearbyMatchesBruteForceEverywhere() throws {
        var rng = SplitMix(seed: 11)
        for (latitude, longitude) in [(52.52, 13.41), (0.0, 179.999), (0.0, -179.999), (89.99, 40.0), (-33.9, 151.2)] {
            let h = Harness(Self.keeping)
            var positions: [String: (Double, Double)] = [:]
            for k in 0..<400 {
                let lat = max(-90, min(90, latitude + rng.double(-0.05, 0.05)))
                var lon = longitude + rng.double(-0.05, 0.05)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                h.fix("d\(k)", 0, lat, lon)
                positions["d\(k)"] = (lat, lon)
            }
            for radius in [10.0, 500, 2_000, 5_000] {
                let got = h.engine.nearby(latitude: latitude, longitude: longitude, radius: radius, limit: 1000)
                let expected = positions.map { ($0.key, Geodesy.distance(Coordinate(latitude: latitude, longitude: longitude),
                                                                        Coordinate(latitude: $0.value.0, longitude: $0.value.1))) }
                    .filter { $0.1 <= radius }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
                #expect(got.map(\.device) == expected.map(\.0), "at \(latitude),\(longitude) within \(radius) m")
                #expect(zip(got, expected).allSatisfy { abs($0.distance - $1.1) < 1e-6 })
                #expect(h.engine.nearby(latitude: latitude, longitude: longitude, radius: radius, limit: 3).map(\.device)
                        == Array(expected.prefix(3).map(\.0)))
            }
        }
    }

    @Test func positionsAreKeptOnlyWhenAsked() throws {
        let replay = Harness()
        replay.fix("a", 0, 52.5, 13.4, accuracy: 3)
        #expect(replay.engine.status(ofDevice: "a")?.lastPosition == nil)
        #expect(replay.engine.nearby(latitude: 52.5, longitude: 13.4, radius: 100, limit: 10).isEmpty)
        let serve = Harness(Self.keeping)
        serve.fix("a", 0, 52.5, 13.4, accuracy: 3)
        serve.fix("a", 5, 52.6, 13.5)
        #expect(serve.engine.status(ofDevice: "a")?.lastPosition == DevicePosition(latitude: 52.6, longitude: 13.5, horizontalAccuracy: nil))
    }

    @Test func occupantsAreEveryMembershipOfTheRegion() throws {
        let h = Harness(Self.keeping)
        try h.circle("small", lat: 52.52, lon: 13.41, radius: 100)
        try h.circle("dwell", lat: 52.52, lon: 13.41, radius: 100, #""dwell": 600"#)
        var rng = SplitMix(seed: 5)
        for k in 0..<300 {
            h.fix("d\(k)", 0, 52.53, 13.41)
            h.fix("d\(k)", 10, 52.52 + rng.double(-0.0015, 0.0015), 13.41)
        }
        for (region, phase) in [("small-region", "inside"), ("dwell-region", "entering")] {
            let got = try #require(h.engine.occupants(ofRegion: region))
            var expected: [String] = []
            for k in 0..<300 {
                let s = try #require(h.engine.status(ofDevice: "d\(k)"))
                if s.memberships.contains(where: { $0.regionID == region }) { expected.append("d\(k)") }
            }
            #expect(got.map(\.device) == expected.sorted())
            #expect(!got.isEmpty && got.count < 300)
            #expect(got.allSatisfy { $0.phase == phase })
        }
        #expect(h.engine.occupants(ofRegion: "nowhere") == nil)
    }

    /// Random entries, exits, dwell, replaced and removed requests and expired devices: the region query always
    /// equals every live device's memberships, both where it reads only the devices noted on entry (the service)
    /// and where it walks every device record (replay keeps no lists); the two engines see the same input.
    @Test(arguments: 1...6 as ClosedRange<UInt64>) func occupantsFollowRandomChurn(seed: UInt64) throws {
        var tracking = Self.keeping
        tracking.idleDeviceExpiry = 900
        var walking = TriggerEngine.Configuration()
        walking.idleDeviceExpiry = 900
        #expect(!walking.tracksOccupants, "replay's default keeps no occupant lists")
        let engines = [("tracking", Harness(tracking)), ("walking", Harness(walking))]
        var rng = SplitMix(seed: seed)
        func add(_ id: String, region: String, radius: Double, dwell: Int) throws {
            for (_, h) in engines {
                try h.add("""
                    {"identifier":"\(id)","content":{"title":"t"},"trigger":{"repeats":true,"dwell":\(dwell),
                     "region":{"type":"circle","id":"\(region)","center":{"latitude":52.52,"longitude":13.41},"radius":\(radius)}}}
                    """)
            }
        }
        let requests = [("a", "shared", 100.0, 0), ("b", "shared", 200.0, 0), ("c", "own", 150.0, 120), ("d", "own2", 50.0, 0)]
        for r in requests { try add(r.0, region: r.1, radius: r.2, dwell: r.3) }
        var t = 0.0
        var checked = 0
        for step in 0..<4000 {
            t += rng.double(0, 3)
            switch rng.int(0, 99) {
            case 0..<90:
                let d = "d\(rng.int(0, 119))"
                let latitude = 52.52 + rng.double(-0.003, 0.003)
                for (_, h) in engines { h.fix(d, t, latitude, 13.41) }
            case 90..<94:
                let r = rng.pick(requests)
                try add(r.0, region: r.1, radius: rng.double(40, 250), dwell: r.3)
            case 94..<96:
                let identifier = rng.pick(requests).0
                for (_, h) in engines { h.engine.remove(identifiers: [identifier]) }
            case 96..<98:
                let r = rng.pick(requests)
                if engines[0].1.engine.pendingRequests.allSatisfy({ $0.identifier != r.0 }) { try add(r.0, region: r.1, radius: r.2, dwell: r.3) }
            default:
                t += 1000  // every device goes idle; the next fix sweeps them out
            }
            guard step % 50 == 0 else { continue }
            for (name, h) in engines {
                let everyone = h.engine.deviceStatuses(from: 0, limit: 10_000).statuses
                for region in ["shared", "own", "own2"] {
                    let expected = everyone.flatMap { s in s.memberships.filter { $0.regionID == region }.map { "\(s.device)@\($0.identifier):\($0.phase)" } }.sorted()
                    let got = h.engine.occupants(ofRegion: region)?.map { "\($0.device)@\($0.identifier):\($0.phase)" }
                    #expect((got ?? []).sorted() == expected, "\(name) seed \(seed) step \(step) region \(region)")
                    #expect(got?.count ?? 0 == (got.map { Set($0).count } ?? 0), "no device twice for one request")
                    checked += expected.count
                }
            }
        }
        #expect(checked > 0, "the churn put somebody inside at some check")
    }

    @Test func pagingVisitsEachLiveDeviceOnce() throws {
        let h = Harness(Self.keeping)
        for k in 0..<257 { h.fix("d\(k)", 0, 52.0, 13.0) }
        var seen: [String] = []
        var start = 0
        while true {
            let page = h.engine.deviceStatuses(from: start, limit: 50)
            seen += page.statuses.map(\.device)
            guard let next = page.next else { break }
            start = next
        }
        #expect(seen.count == 257 && Set(seen).count == 257)
    }
}
