import Foundation
import Geometry
import TriggerEngine

/// A reproducible benchmark workload: regions and a fix stream, generated from a seed.
struct Workload {
    enum Shape: String { case circles, polygons }
    enum Density: String { case sparse, dense }

    let shape: Shape
    let density: Density
    var circles: [(center: Coordinate, radius: Double)] = []
    var polygons: [[Coordinate]] = []
    var fixLatitudes: [Double] = []
    var fixLongitudes: [Double] = []
    let devices: Int
    let origin = Coordinate(latitude: 52.0, longitude: 13.0)
    /// Side of the square the regions are spread over, metres.
    let side: Double

    /// Region radii 100–500 m (mean area ≈ 0.29 km²). Dense: the area is sized so a point lies in ~12 regions on
    /// average; sparse: so ~2 % of points lie in any region.
    ///
    /// The area is a patch of the sphere `side` × `side` in size, centred on `origin`, and regions and fixes are
    /// spread uniformly over it per square metre: latitudes drawn so each band gets its share of the area, steps
    /// and shapes converted to degrees at their own latitude. (Until the nineteenth session the square was laid
    /// out in degrees from `origin` with the metres per degree of 52°: a million sparse regions then reached 86° N,
    /// where a degree of longitude is a seventh as wide, so regions and fixes crowded there and the million-region
    /// case had 2.7 times the candidates and twice the notifications per fix of the 100k case it is compared with.)
    init(shape: Shape, density: Density, regions: Int, devices: Int, fixes: Int, seed: UInt64) {
        self.shape = shape
        self.density = density
        self.devices = devices
        let meanArea = Double.pi * (100.0 * 100 + 100 * 500 + 500 * 500) / 3  // E[r²]·π for r uniform in 100…500
        let coverage = density == .dense ? 12.0 : 0.02
        side = (Double(regions) * meanArea / coverage).squareRoot()
        var rng = SplitMix64(seed: seed)
        let patch = Patch(centre: origin, side: side)
        for _ in 0..<regions {
            let c = patch.point(rng.double(0, 1), rng.double(0, 1))
            let r = rng.double(100, 500)
            switch shape {
            case .circles:
                circles.append((c, r))
            case .polygons:
                // Star-shaped (so always simple) with 16 to 1,000 vertices, log-uniform.
                let n = Int((16.0 * pow(1000.0 / 16.0, rng.double(0, 1))).rounded())
                let angles = (0..<n).map { Double($0) / Double(n) * 2 * .pi }
                let metresPerDegree = Geodesy.metresPerDegree(latitude: c.latitude)
                var ring = angles.map { a -> Coordinate in
                    let rr = r * rng.double(0.7, 1.0)
                    return Coordinate(latitude: c.latitude + rr * sin(a) / metresPerDegree.latitude,
                                      longitude: c.longitude + rr * cos(a) / metresPerDegree.longitude)
                }
                ring.append(ring[0])
                polygons.append(ring)
            }
        }
        // Each device walks: a start point in the patch, then steps of up to 50 m east-west and north-south.
        var positions = (0..<devices).map { _ in patch.point(rng.double(0, 1), rng.double(0, 1)) }
        fixLatitudes.reserveCapacity(fixes)
        fixLongitudes.reserveCapacity(fixes)
        for k in 0..<fixes {
            let d = k % devices
            positions[d] = patch.step(from: positions[d], east: rng.double(-50, 50), north: rng.double(-50, 50))
            fixLatitudes.append(positions[d].latitude)
            fixLongitudes.append(positions[d].longitude)
        }
    }

    func requests() -> [NotificationRequest] {
        var out: [NotificationRequest] = []
        let content = NotificationContent(title: "{event} {region.id}", body: "{device} at {fix.time}")
        for (k, c) in circles.enumerated() {
            out.append(NotificationRequest(identifier: "r\(k)", content: content, trigger: LocationTrigger(
                region: Region(id: "c\(k)", shape: .circle(center: c.center, radius: c.radius)), repeats: true)))
        }
        for (k, p) in polygons.enumerated() {
            out.append(NotificationRequest(identifier: "r\(k)", content: content, trigger: LocationTrigger(
                region: Region(id: "p\(k)", shape: .polygon(PolygonSet(polygons: [[p]]))), repeats: true)))
        }
        return out
    }
}

/// SplitMix64: a tiny deterministic generator, so the engine and the peer see identical data (and, as a
/// `RandomNumberGenerator`, the same workload for a seed in every run).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func double(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53) }
}
