import Foundation
import Geometry
import TriggerEngine

extension Workload {
    /// A patch of the sphere of a given area, centred on a point: latitudes centre ± δ, longitudes centre ± Δλ/2,
    /// with Δλ making the patch `side` wide at its middle and δ making its area side².
    struct Patch {
        let minimumLatitude: Double, maximumLatitude: Double, minimumLongitude: Double, maximumLongitude: Double
        private let sinMinimum: Double, sinMaximum: Double

        init(centre: Coordinate, side: Double) {
            let radius = Geodesy.meanRadius
            let phi = centre.latitude * .pi / 180
            // R²·Δλ·(sin φ₂ − sin φ₁) = R·side/cos φ · 2·cos φ·sin δ = side² when sin δ = side / 2R.
            let delta = asin(min(1, side / (2 * radius)))
            let halfWidth = side / (radius * cos(phi)) / 2
            minimumLatitude = max(-90, (phi - delta) * 180 / .pi)
            maximumLatitude = min(90, (phi + delta) * 180 / .pi)
            minimumLongitude = centre.longitude - halfWidth * 180 / .pi
            maximumLongitude = centre.longitude + halfWidth * 180 / .pi
            sinMinimum = sin(minimumLatitude * .pi / 180)
            sinMaximum = sin(maximumLatitude * .pi / 180)
        }

        /// The point at fractions `u` (west to east) and `v` (of the area, south to north): uniform over the
        /// patch per square metre when `u` and `v` are uniform.
        func point(_ u: Double, _ v: Double) -> Coordinate {
            Coordinate(latitude: asin(sinMinimum + v * (sinMaximum - sinMinimum)) * 180 / .pi,
                       longitude: minimumLongitude + u * (maximumLongitude - minimumLongitude))
        }

        /// `from` moved `east` and `north` metres, kept inside the patch.
        func step(from p: Coordinate, east: Double, north: Double) -> Coordinate {
            let metresPerDegree = Geodesy.metresPerDegree(latitude: p.latitude)
            return Coordinate(
                latitude: min(maximumLatitude, max(minimumLatitude, p.latitude + north / metresPerDegree.latitude)),
                longitude: min(maximumLongitude, max(minimumLongitude, p.longitude + east / metresPerDegree.longitude)))
        }
    }
}
