import Geometry
import TestSupport
import Testing
@testable import TriggerEngine

/// The index's branch-free scan of a cell (`RegionIndex.scanBranchFree`) keeps exactly the entries
/// `CompactBox.near` keeps, in order: on random boxes and margins, and on points placed exactly on a grown box's
/// edge and one float step either side of it, where a comparison made as the sign of a difference could differ.
@Suite struct BranchFreeScanTests {
    @Test func keepsWhatTheBoxTestKeeps() {
        var rng = SplitMix(seed: 7)
        var checkedOnEdges = 0
        for round in 0..<400 {
            let count = 1 + Int(rng.double(0, 80))
            let centre = (latitude: rng.double(-89, 89), longitude: rng.double(-179, 179))
            let boxes = (0..<count).map { _ -> RegionIndex.CompactBox in
                let lat = centre.latitude + rng.double(-0.01, 0.01), lon = centre.longitude + rng.double(-0.01, 0.01)
                let dLat = rng.double(0, 0.005), dLon = rng.double(0, 0.005)
                return RegionIndex.CompactBox(BoundingBox(minLatitude: lat - dLat, maxLatitude: lat + dLat,
                                                          minLongitude: lon - dLon, maxLongitude: lon + dLon))
            }
            let slots = (0..<count).map { _ in Int32(truncatingIfNeeded: rng.next() % 100_000) }
            // No margin in a quarter of the rounds (exact fixes), else up to about 50 m.
            let margins: (lat: Float, lon: Float) = round % 4 == 0 ? (0, 0) : (Float(rng.double(0, 0.0005)), Float(rng.double(0, 0.0008)))
            var points: [(Float, Float)] = (0..<40).map { _ in
                (Float(centre.latitude + rng.double(-0.012, 0.012)), Float(centre.longitude + rng.double(-0.012, 0.012)))
            }
            // Exactly on each grown edge of a few boxes, and one float step inside and outside it.
            for b in boxes.prefix(4) {
                let edges: [(Float, Float)] = [
                    (b.minLatitude - margins.lat, b.minLongitude), (b.maxLatitude + margins.lat, b.maxLongitude),
                    (b.minLatitude, b.minLongitude - margins.lon), (b.maxLatitude, b.maxLongitude + margins.lon),
                ]
                for (lat, lon) in edges {
                    points += [(lat, lon), (lat.nextUp, lon), (lat.nextDown, lon), (lat, lon.nextUp), (lat, lon.nextDown)]
                }
            }
            for (lat, lon) in points {
                let expected = zip(boxes, slots).filter { $0.0.near(lat, lon, margins.lat, margins.lon) }.map(\.1)
                var out: [Int32] = [-1]  // what was there before stays
                boxes.withUnsafeBufferPointer { b in
                    slots.withUnsafeBufferPointer { s in
                        RegionIndex.scanBranchFree(b, s, 0..<count, latitude: lat, longitude: lon, margins: margins, into: &out)
                    }
                }
                #expect(out == [-1] + expected, "round \(round) point \(lat), \(lon)")
                if expected.count != count, !expected.isEmpty { checkedOnEdges += 1 }
            }
        }
        // The points must have split cells, not only kept all or nothing.
        #expect(checkedOnEdges > 1_000)
    }
}
