#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Geodesy {
    /// The point `distance` metres from `origin` along the geodesic with initial `bearing` (degrees from north), on
    /// the WGS84 ellipsoid: Vincenty's direct formula (sub-millimetre). Used to build demo tracks and exact test
    /// points; not on the per-fix path.
    public static func destination(from origin: Coordinate, bearing: Double, distance metres: Double) -> Coordinate {
        let a = Geodesy.semiMajorAxis, f = Geodesy.flattening, b = a * (1 - f)
        let alpha1 = bearing * .pi / 180
        let sinA1 = sin(alpha1), cosA1 = cos(alpha1)
        let tanU1 = (1 - f) * tan(origin.latitude * .pi / 180)
        let cosU1 = 1 / (1 + tanU1 * tanU1).squareRoot(), sinU1 = tanU1 * cosU1
        let sigma1 = atan2(tanU1, cosA1)
        let sinAlpha = cosU1 * sinA1
        let cos2Alpha = 1 - sinAlpha * sinAlpha
        let u2 = cos2Alpha * (a * a - b * b) / (b * b)
        let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        var sigma = metres / (b * A)
        var cos2SigmaM = 0.0, sinSigma = 0.0, cosSigma = 0.0
        for _ in 0..<200 {
            cos2SigmaM = cos(2 * sigma1 + sigma)
            sinSigma = sin(sigma); cosSigma = cos(sigma)
            let dSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
            let next = metres / (b * A) + dSigma
            if abs(next - sigma) < 1e-13 { sigma = next; break }
            sigma = next
        }
        cos2SigmaM = cos(2 * sigma1 + sigma); sinSigma = sin(sigma); cosSigma = cos(sigma)
        let tmp = sinU1 * sinSigma - cosU1 * cosSigma * cosA1
        let lat2 = atan2(sinU1 * cosSigma + cosU1 * sinSigma * cosA1, (1 - f) * (sinAlpha * sinAlpha + tmp * tmp).squareRoot())
        let lambda = atan2(sinSigma * sinA1, cosU1 * cosSigma - sinU1 * sinSigma * cosA1)
        let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
        let L = lambda - (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
        var lon2 = origin.longitude + L * 180 / .pi
        if lon2 > 180 { lon2 -= 360 } else if lon2 < -180 { lon2 += 360 }
        return Coordinate(latitude: lat2 * 180 / .pi, longitude: lon2)
    }
}
