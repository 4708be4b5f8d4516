@testable import Geometry
import Testing

@Suite struct GeodesyTests {
    @Test(arguments: [0.0, 35, 60, 78.2, 89.5, -45])
    func distanceMatchesTheEllipsoidWithinATenthOfAPercent(latitude: Double) {
        let origin = Coordinate(latitude: latitude, longitude: 15)
        for metres in [1.0, 100, 1000, 50_000, 500_000, 2_000_000] {
            for bearing in stride(from: 0.0, to: 360, by: 45) {
                let p = Geodesy.destination(from: origin, bearing: bearing, distance: metres)
                let d = Geodesy.distance(origin, p)
                #expect(abs(d - metres) / metres < 0.001, "lat \(latitude) \(metres) m bearing \(bearing): \(d)")
            }
        }
    }

    @Test func chordAndArcAreInverses() {
        for s in [0.5, 10, 1234.5, 1e6] {
            #expect(abs(Geodesy.arc(chord: Geodesy.chord(arc: s)) - s) < 1e-6 * s)
        }
    }

    @Test func circleBoxesCoverTheCircleAcrossTheAntimeridianAndPoles() {
        let boxes = BoundingBox.covering(center: Coordinate(latitude: 10, longitude: 179.999), radius: 1000)
        #expect(boxes.count == 2)
        let east = Geodesy.destination(from: Coordinate(latitude: 10, longitude: 179.999), bearing: 90, distance: 999)
        #expect(boxes.contains { $0.contains(latitude: east.latitude, longitude: east.longitude) })
        let polar = BoundingBox.covering(center: Coordinate(latitude: 89.99, longitude: 0), radius: 5000)
        #expect(polar.count == 1 && polar[0].minLongitude == -180 && polar[0].maxLatitude == 90)
    }
}
