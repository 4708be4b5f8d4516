import JSON
import Testing
import TriggerEngine
@testable import Ingest

/// The OsmAnd protocol's units and time forms (https://www.traccar.org/osmand/), and Traccar Client's JSON.
@Suite struct OsmAndDecoderTests {
    @Test func parametersInTheProtocolsUnits() throws {
        let fix = try OsmAndDecoder.fix(parameters: [("id", "t1"), ("lat", "52.5"), ("lon", "13.4"), ("timestamp", "1760000000"),
                                                     ("speed", "10"), ("bearing", "270"), ("altitude", "35.5"), ("accuracy", "6"),
                                                     ("hdop", "1.2"), ("batt", "50")], source: "t").get()
        #expect(fix.device == "t1" && fix.latitude == 52.5 && fix.longitude == 13.4)
        #expect(abs(fix.speed! - 5.14444) < 1e-9, "10 knots in m/s")
        #expect(fix.course == 270 && fix.altitude == 35.5 && fix.horizontalAccuracy == 6)
        #expect(fix.timestamp == Timestamp(microseconds: 1_760_000_000_000_000))
        let ms = try OsmAndDecoder.fix(parameters: [("deviceid", "t1"), ("lat", "1"), ("lon", "2"), ("timestamp", "1760000000123")], source: "t").get()
        #expect(ms.timestamp == Timestamp(microseconds: 1_760_000_000_123_000))
        let iso = try OsmAndDecoder.fix(parameters: [("id", "t1"), ("lat", "1"), ("lon", "2"), ("timestamp", "2025-10-09T08:53:20Z")], source: "t").get()
        #expect(iso.timestamp == Timestamp(rfc3339: "2025-10-09T08:53:20Z"))
        #expect(iso.horizontalAccuracy == nil, "hdop is never taken for metres")
    }

    @Test func problemsNameTheParameter() {
        for (parameters, field) in [([("id", "t"), ("lon", "2"), ("timestamp", "1760000000")], "lat"),
                                    ([("id", "t"), ("lat", "x"), ("lon", "2"), ("timestamp", "1760000000")], "lat"),
                                    ([("lat", "1"), ("lon", "2"), ("timestamp", "1760000000")], "id"),
                                    ([("id", "t"), ("lat", "91"), ("lon", "2"), ("timestamp", "1760000000")], "lat")] {
            guard case .failure(let e) = OsmAndDecoder.fix(parameters: parameters, source: "t") else {
                Issue.record("accepted \(parameters)")
                continue
            }
            #expect(e.field == field, "\(parameters): \(e)")
        }
    }

    @Test func traccarClientJSON() throws {
        let json = try JSONParser.parse(#"{"location":[{"timestamp":"2025-10-09T08:53:20.500Z","coords":{"latitude":52.5,"longitude":13.4,"accuracy":7,"speed":2.5,"heading":-1,"altitude":30}},{"timestamp":"2025-10-09T08:54:20Z","coords":{"latitude":52.6}}],"device_id":"phone-1"}"#)
        let results = try #require(OsmAndDecoder.fixes(json: json, source: "t"))
        let first = try results[0].get()
        #expect(first.device == "phone-1" && first.speed == 2.5 && first.course == nil && first.horizontalAccuracy == 7)
        guard case .failure(let e) = results[1] else { Issue.record("a position without longitude was accepted"); return }
        #expect(e.field == "location.coords.longitude")
        #expect(OsmAndDecoder.fixes(json: try JSONParser.parse(#"{"position":{}}"#), source: "t") == nil)
    }
}
