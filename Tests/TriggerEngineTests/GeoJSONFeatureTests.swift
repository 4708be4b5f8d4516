import Foundation
import Geometry
import JSON
import Testing
@testable import TriggerEngine

/// GeoJSON as geojson.io and QGIS export it (files in Tests/GeoTriggerCLITests/Fixtures): features without an
/// identifier get a stable one, zones repeat and notify with words, and errors name the feature and the property the
/// user wrote (docs/semantics.md, "GeoJSON features").
@Suite struct GeoJSONFeatureTests {
    static func fixture(_ name: String) throws -> JSONValue {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("GeoTriggerCLITests/Fixtures/\(name)"))
        return try JSONParser.parse([UInt8](data))
    }

    /// A point inside the region: a circle's centre, a polygon's first ring's box centre (the fixtures' zones are
    /// rectangles).
    static func inside(_ region: Region) -> Coordinate {
        switch region.shape {
        case .circle(let center, _): return center
        case .polygon(let set):
            let ring = set.polygons[0][0]
            let lats = ring.map(\.latitude), lons = ring.map(\.longitude)
            return Coordinate(latitude: (lats.min()! + lats.max()!) / 2, longitude: (lons.min()! + lons.max()!) / 2)
        case .beacon, .proximity: fatalError("no beacon or proximity regions in GeoJSON")
        }
    }

    /// One device per zone goes out, in, out, in, out: two entries and two exits each prove the zone repeats.
    static func driveThroughEveryZone(_ requests: [NotificationRequest]) throws -> [FiredNotification] {
        let h = Harness(TriggerEngine.Configuration(clock: .eventTime))
        try h.engine.add(contentsOf: requests)
        for (k, r) in requests.enumerated() {
            let p = inside(r.trigger.region)
            for step in 0..<5 {
                let lat = step % 2 == 1 ? p.latitude : 52.70
                h.fix("van-\(k)", Double(step * 60), lat, p.longitude)
            }
        }
        h.finish()
        return h.out
    }

    static func expectRepeatingReadableZones(_ requests: [NotificationRequest], _ fired: [FiredNotification]) {
        for r in requests {
            #expect(r.trigger.repeats, "\(r.identifier)")
            #expect(r.trigger.notifyOnEntry && r.trigger.notifyOnExit, "\(r.identifier)")
            let mine = fired.filter { $0.identifier == r.identifier }
            #expect(mine.map(\.event) == [.entry, .exit, .entry, .exit], "\(r.identifier): \(mine.map(\.event))")
            for n in mine {
                #expect(!n.content.title.isEmpty && !n.content.body.isEmpty, "\(r.identifier)")
                #expect(!n.content.title.contains("{") && !n.content.body.contains("{"))
                #expect(n.content.body.hasPrefix("\(n.device): \(n.event.rawValue) at 2026-"), "\(n.content.body)")
            }
        }
    }

    @Test func aGeoJSONIOExportLoadsAsRepeatingZonesWithReadableNotifications() throws {
        let converted = try RequestDecoder().convertGeoJSON(try Self.fixture("geojson-io-export.geojson"))
        let requests = try #require(converted.requests)
        #expect(requests.count == 3)
        #expect(converted.defaultsApplied == ["identifier", "radius", "repeats", "title", "body"])
        let fired = try Self.driveThroughEveryZone(requests)
        Self.expectRepeatingReadableZones(requests, fired)
        // The title is the zone's name where it has one, else its (derived) identifier.
        let titles = Set(fired.map(\.content.title))
        #expect(titles == [requests[0].identifier, "Depot Nord", "Main gate"], "\(titles)")
        // A marker without a radius is a 100 m circle; styling properties are ignored.
        guard case .circle(_, let radius) = requests[2].trigger.region.shape else { Issue.record("not a circle"); return }
        #expect(radius == 100)
    }

    @Test func aQGISExportLoadsAsRepeatingZonesWithReadableNotifications() throws {
        let converted = try RequestDecoder().convertGeoJSON(try Self.fixture("qgis-export.geojson"))
        let requests = try #require(converted.requests)
        #expect(requests.count == 3)
        #expect(requests.map(\.trigger.region.name) == ["Warehouse", "Yard", nil])
        let fired = try Self.driveThroughEveryZone(requests)
        Self.expectRepeatingReadableZones(requests, fired)
    }

    @Test func derivedIdentifiersAreStableAcrossLoadsAndNameTheZone() throws {
        let first = try RequestDecoder().decodeRegionFile(try Self.fixture("geojson-io-export.geojson")).map(\.identifier)
        let second = try RequestDecoder().decodeRegionFile(try Self.fixture("geojson-io-export.geojson")).map(\.identifier)
        #expect(first == second)
        #expect(Set(first).count == 3)
        #expect(first[0].hasPrefix("feature-") && first[0].count == "feature-".count + 12, "\(first[0])")
        #expect(first[1] == "feature-depot-nord-45818acbc60b", "\(first[1])")
        #expect(first[2].hasPrefix("feature-main-gate-"), "\(first[2])")
        // Pinned: the hash is FNV-1a of the geometry, the same on every machine and in every release.
        #expect(first[2] == GeoJSONFeature.derivedIdentifier(
            geometry: try JSONParser.parse(#"{"type": "Point", "coordinates": [13.3905, 52.5105]}"#), radius: nil, name: "Main gate"))
        #expect(GeoJSONFeature.slug("Straße 12 — Süd!") == "stra-e-12-s-d")
    }

    @Test func styleChangesKeepTheIdentifierAndReshapingChangesIt() throws {
        func id(_ properties: String, _ coordinates: String) throws -> String {
            try RequestDecoder().decodeRegionFile(try JSONParser.parse("""
                {"type": "Feature", "properties": \(properties), "geometry": {"type": "Point", "coordinates": \(coordinates)}}
                """))[0].identifier
        }
        let plain = try id("{}", "[13.4, 52.5]")
        #expect(try id(##"{"marker-color": "#ff0000"}"##, "[13.4, 52.5]") == plain)
        #expect(try id("{}", "[13.4001, 52.5]") != plain)
        #expect(try id(#"{"radius": 50}"#, "[13.4, 52.5]") != plain)
    }

    @Test func identicalFeaturesGetNumberedIdentifiersInFileOrder() throws {
        let feature = #"{"type": "Feature", "properties": {"name": "Gate"}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#
        let ids = try RequestDecoder().decodeRegionFile(try JSONParser.parse(
            #"{"type": "FeatureCollection", "features": [\#(feature), \#(feature), \#(feature)]}"#)).map(\.identifier)
        #expect(ids[1] == ids[0] + "-2" && ids[2] == ids[0] + "-3", "\(ids)")
    }

    @Test func idPropertyNamesTheFeatures() throws {
        let json = try Self.fixture("qgis-export.geojson")
        let requests = try RequestDecoder().decodeRegionFile(json, geoJSON: GeoJSONOptions(idProperty: "fid"))
        #expect(requests.map(\.identifier) == ["1", "2", "3"])
        #expect(requests.map(\.trigger.region.id) == ["1", "2", "3"])
        // properties.identifier still wins over the chosen property.
        let named = try RequestDecoder().decodeRegionFile(try JSONParser.parse(
            #"{"type": "Feature", "properties": {"identifier": "gate", "fid": 9, "radius": 20}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#),
            geoJSON: GeoJSONOptions(idProperty: "fid"))
        #expect(named[0].identifier == "gate")
        // A feature without it is refused, naming the property.
        #expect(throws: RequestError(path: "features[1].properties.zone",
                                     reason: "required by --id-property zone: a non-empty string or a number")) {
            try RequestDecoder().decodeRegionFile(try JSONParser.parse("""
                {"type": "FeatureCollection", "features": [
                  {"type": "Feature", "properties": {"zone": "a"}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}},
                  {"type": "Feature", "properties": {"fid": 2}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}]}
                """), geoJSON: GeoJSONOptions(idProperty: "zone"))
        }
    }

    /// Three good features, then `fourth`: the error names `features[3]` and the field as the user wrote it.
    static func errorPath(fourth: String) throws -> String? {
        let good = #"{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#
        let collection = #"{"type": "FeatureCollection", "features": [\#(good), \#(good), \#(good), \#(fourth)]}"#
        let json = try JSONParser.parse(collection)
        do {
            _ = try RequestDecoder().decodeRegionFile(json)
            return nil
        } catch {
            return "\(error.path): \(error.reason)"
        }
    }

    @Test func errorsNameTheFeatureAndTheUsersOwnProperty() throws {
        let point = #""geometry": {"type": "Point", "coordinates": [13.4, 52.5]}"#
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {"radius": -5}, \#(point)}"#)
                == "features[3].properties.radius: must be > 0 metres")
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {"dwell": "long"}, \#(point)}"#)
                == "features[3].properties.dwell: expected a number, found a string")
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {"trigger": {"dwell": -1}}, \#(point)}"#)
                == "features[3].properties.trigger.dwell: must be ≥ 0, found -1.0")
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {"title": "{nope}"}, \#(point)}"#)?
                    .hasPrefix("features[3].properties.title: ") == true)
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {"name": true}, \#(point)}"#)
                == "features[3].properties.name: expected a string, found a boolean")
        #expect(try Self.errorPath(fourth: #"{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [13.4, 95]}}"#)
                == "features[3].geometry.coordinates[1]: 95.0 is outside [-90, 90]")
        #expect(try Self.errorPath(fourth: """
            {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[13.40, 52.51], [13.42, 52.51], [13.42], [13.40, 52.51]]]}}
            """) == "features[3].geometry.coordinates[0][2]: must be a [longitude, latitude] position")
        #expect(try Self.errorPath(fourth: """
            {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": [[13.40, 52.51], [13.42, 52.51]]}}
            """)?.hasPrefix("features[3].geometry.type: ") == true)
    }

    @Test func whatAFeatureSaysWinsOverTheDefaults() throws {
        let converted = try RequestDecoder().convertGeoJSON(try JSONParser.parse("""
            {"type": "Feature", "id": "gate", "properties": {"radius": 30, "repeats": false, "title": "Gate", "body": "{device} {event}"},
             "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}
            """))
        let r = try #require(converted.requests?.first)
        #expect(r.identifier == "gate" && !r.trigger.repeats && r.content.title == "Gate")
        #expect(converted.defaultsApplied.isEmpty)
        // The SPEC §1 form states the defaults it took, so a journal replayed without the GeoJSON gives the same.
        let drawn = try RequestDecoder().convertGeoJSON(try JSONParser.parse(
            #"{"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#))
        #expect(drawn.json["trigger"]?["repeats"]?.boolValue == true)
        #expect(drawn.json["content"]?["title"]?.stringValue == "{region.name}")
        #expect(drawn.defaults == [["identifier", "radius", "repeats", "title", "body"]])
        // An empty name is no name: the title falls back to the region id rather than to nothing.
        let unnamed = try RequestDecoder().decodeRegionFile(try JSONParser.parse(
            #"{"type": "Feature", "id": "z", "properties": {"name": ""}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}"#))
        #expect(unnamed[0].trigger.region.name == nil)
    }

    @Test func nativeRequestsKeepTheSPECDefaults() throws {
        let r = try RequestDecoder().decodeRegionFile(try JSONParser.parse(
            #"[{"identifier": "a", "trigger": {"region": {"type": "circle", "id": "a", "center": {"latitude": 52.5, "longitude": 13.4}, "radius": 50}}}]"#))
        #expect(!r[0].trigger.repeats && r[0].content.title.isEmpty)
        #expect(try RequestDecoder().convertGeoJSON(try JSONParser.parse("[]")).defaultsApplied.isEmpty)
    }
}
