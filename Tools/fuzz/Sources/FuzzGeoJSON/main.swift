import JSON
import FuzzChecks
import FuzzDriver
import TriggerEngine

/// One decoder for the whole run (a Sendable value, as `serve` keeps one).
let decoder = RequestDecoder()

/// libFuzzer entry: bytes as a region file (`replay --regions`): `JSONParser`, then `decodeRegionFile`, which reads a
/// GeoJSON FeatureCollection (Polygon/MultiPolygon through GEOS validation and antimeridian splitting, Point +
/// radius as a circle) or falls back to requests.
func fuzzGeoJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    guard let json = try? JSONParser.parse(input) else { return 0 }
    let first = Result { () throws(RequestError) in try decoder.decodeRegionFile(json) }
    let second = Result { () throws(RequestError) in try decoder.decodeRegionFile(json) }
    invariant(first == second, "geojson: decoding the same file twice gave \(first) then \(second)")
    if case .success(let requests) = first {
        if json["type"]?.stringValue == "FeatureCollection" {
            invariant(requests.count == json["features"]?.arrayValue?.count, "geojson: \(requests.count) requests decoded")
        }
        for r in requests { checkRequest(r) }
    }
    return 0
}

runFuzzer(fuzzGeoJSON)
