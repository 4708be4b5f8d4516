#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the WGS84 ellipsoid.
///
/// A distance is measured as the straight-line chord between the two points' Earth-centred (ECEF) positions on the
/// ellipsoid, then turned into an arc length with `2R·asin(c/2R)`. The chord is exact on the ellipsoid; the arc
/// conversion only adds the small curvature term c³/24R², whose error from using the mean radius R is below 0.01 %
/// of the distance for anything under 2,000 km (well inside the SPEC's 0.5 %). The gain: a fix's ECEF position is
/// computed once, and each circle test is then three subtractions, three multiply-adds and a compare.
public enum Geodesy {
    public static let semiMajorAxis = 6_378_137.0
    public static let flattening = 1 / 298.257223563
    public static let eccentricitySquared = flattening * (2 - flattening)
    /// IUGG mean radius, used only for the chord ↔ arc curvature term.
    public static let meanRadius = 6_371_008.8
    /// The smallest meridional radius of curvature (at the equator): the most metres per radian of latitude can shrink to.
    public static let minimumMeridionalRadius = semiMajorAxis * (1 - eccentricitySquared)

    /// A point's Earth-centred, Earth-fixed position on the ellipsoid's surface, metres.
    public struct ECEF: Sendable, Hashable {
        public var x: Double, y: Double, z: Double
        @inlinable public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }

        @inlinable
        public init(_ c: Coordinate) {
            let phi = c.latitude * .pi / 180, lambda = c.longitude * .pi / 180
            let sinPhi = sin(phi), cosPhi = cos(phi)
            let n = Geodesy.semiMajorAxis / (1 - Geodesy.eccentricitySquared * sinPhi * sinPhi).squareRoot()
            x = n * cosPhi * cos(lambda)
            y = n * cosPhi * sin(lambda)
            z = n * (1 - Geodesy.eccentricitySquared) * sinPhi
        }

        @inlinable
        public func chordSquared(to o: ECEF) -> Double {
            let dx = x - o.x, dy = y - o.y, dz = z - o.z
            return dx * dx + dy * dy + dz * dz
        }
    }

    /// Geodesic (arc) length for a chord length, metres.
    @inlinable
    public static func arc(chord c: Double) -> Double {
        let r2 = 2 * meanRadius
        return r2 * asin(min(1, c / r2))
    }

    /// Chord length for an arc length, metres (the inverse of `arc(chord:)`); arcs past half the globe clamp.
    @inlinable
    public static func chord(arc s: Double) -> Double {
        let r2 = 2 * meanRadius
        guard s > 0 else { return 0 }
        return r2 * sin(min(.pi / 2, s / r2))
    }

    /// Distance between two coordinates, metres.
    @inlinable
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        arc(chord: ECEF(a).chordSquared(to: ECEF(b)).squareRoot())
    }

    /// Metres per degree of latitude and of longitude at a latitude (ellipsoidal radii of curvature): the local
    /// scale used to measure short distances to polygon edges.
    @inlinable
    public static func metresPerDegree(latitude: Double) -> (latitude: Double, longitude: Double) {
        let phi = latitude * .pi / 180
        let s = sin(phi)
        let w = 1 - eccentricitySquared * s * s
        let n = semiMajorAxis / w.squareRoot()
        let m = semiMajorAxis * (1 - eccentricitySquared) / (w * w.squareRoot())
        return (m * .pi / 180, n * cos(phi) * .pi / 180)
    }

    /// A conservative angular half-size, in degrees of latitude, of `metres` anywhere on Earth.
    @inlinable
    public static func latitudeDegrees(spanning metres: Double) -> Double {
        metres / minimumMeridionalRadius * 180 / .pi * 1.000_001
    }

    /// A conservative half-size in degrees of longitude of `metres` at latitudes up to `latitude` in magnitude;
    /// 360 when the span reaches a pole.
    @inlinable
    public static func longitudeDegrees(spanning metres: Double, atLatitude latitude: Double) -> Double {
        let dLat = latitudeDegrees(spanning: metres)
        let worst = abs(latitude) + dLat
        guard worst < 89.999 else { return 360 }
        // N·cosφ is at least a·cosφ; dividing by the smaller radius over-covers, never under-covers.
        let perDegree = semiMajorAxis * cos(worst * .pi / 180) * .pi / 180
        return min(360, metres / perDegree * 1.000_001)
    }
}
