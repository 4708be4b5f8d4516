import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The present from memory: `GET /v1/devices` (paged, last position), `/v1/devices/{id}/regions`,
/// `/v1/regions/{id}/devices`, `/v1/nearby`; and GeoJSON request bodies.
@Suite struct QueryEndpointTests {
    static func circle(_ id: String, region: String, latitude: Double, longitude: Double, radius: Double) -> String {
        """
        {"identifier": "\(id)", "content": {"title": "t"},
         "trigger": {"type": "location", "repeats": true,
                     "region": {"type": "circle", "id": "\(region)", "center": {"latitude": \(latitude), "longitude": \(longitude)}, "radius": \(radius)}}}
        """
    }

    static func fix(_ device: String, _ second: Int, _ latitude: Double, _ longitude: Double, accuracy: Double? = nil) -> String {
        let a = accuracy.map { #", "horizontalAccuracy": \#($0)"# } ?? ""
        return #"{"device": "\#(device)", "timestamp": \#(1_760_000_000 + second), "latitude": \#(latitude), "longitude": \#(longitude)\#(a)}"#
    }

    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
    }

    /// Depot (100 m) and yard (100 m, ~1.1 km north); depot-gate shares the depot's region id.
    static let requests = "[" + [
        circle("depot-entry", region: "depot", latitude: 52.5219, longitude: 13.4132, radius: 100),
        circle("depot-gate", region: "depot", latitude: 52.5219, longitude: 13.4132, radius: 300),
        circle("yard-entry", region: "yard", latitude: 52.5319, longitude: 13.4132, radius: 100),
    ].joined(separator: ",") + "]"

    static let fixes = [
        fix("truck-1", 0, 52.5219, 13.4132, accuracy: 5),        // in the depot (both its requests)
        fix("truck-2", 0, 52.5319, 13.4132),                     // in the yard, no accuracy
        fix("truck-3", 0, 52.5239, 13.4132, accuracy: 8),        // ~222 m north of the depot: only in depot-gate
        fix("truck-1", 10, 52.52195, 13.4132, accuracy: 4),      // moves 5.6 m, still in the depot
    ].joined(separator: "\n")

    @Test func devicesRegionsAndNearby() async throws {
        try await TestServer().run { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: Self.requests)).status == .ok)
            let posted = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: Self.fixes))
            #expect(posted.status == .ok)

            // One device with its newest position and the regions it is in.
            let one = try Self.object(try await client.execute(uri: "/v1/devices/truck-1", method: .get))
            let position = try #require(one["lastPosition"] as? [String: Any])
            #expect(position["latitude"] as? Double == 52.52195 && position["longitude"] as? Double == 13.4132)
            #expect(position["horizontalAccuracy"] as? Double == 4)
            let two = try Self.object(try await client.execute(uri: "/v1/devices/truck-2", method: .get))
            #expect((two["lastPosition"] as? [String: Any])?["horizontalAccuracy"] is NSNull)

            let regions = try Self.object(try await client.execute(uri: "/v1/devices/truck-1/regions", method: .get))
            let inside = try #require(regions["regions"] as? [[String: Any]]).map { $0["identifier"] as? String }
            #expect(inside == ["depot-entry", "depot-gate"])
            #expect(try await client.execute(uri: "/v1/devices/nobody/regions", method: .get).status == .notFound)

            // Every request with region id "depot": truck-1 in both, truck-3 only in the 300 m one.
            let depot = try Self.object(try await client.execute(uri: "/v1/regions/depot/devices", method: .get))
            let occupants = try #require(depot["devices"] as? [[String: Any]]).map { "\($0["device"]!)@\($0["identifier"]!)" }
            #expect(occupants == ["truck-1@depot-entry", "truck-1@depot-gate", "truck-3@depot-gate"])
            let yard = try Self.object(try await client.execute(uri: "/v1/regions/yard/devices", method: .get))
            #expect(try #require(yard["devices"] as? [[String: Any]]).map { $0["device"] as? String } == ["truck-2"])
            #expect(try await client.execute(uri: "/v1/regions/nowhere/devices", method: .get).status == .notFound)

            // Nearest first, by the newest fix; the yard truck is ~1.1 km away.
            let near = try Self.object(try await client.execute(uri: "/v1/nearby?latitude=52.5219&longitude=13.4132&radius=500", method: .get))
            let found = try #require(near["devices"] as? [[String: Any]])
            #expect(found.map { $0["device"] as? String } == ["truck-1", "truck-3"])
            let d1 = try #require(found.first?["distance"] as? Double), d3 = try #require(found.last?["distance"] as? Double)
            #expect(abs(d1 - 5.57) < 0.2, "truck-1 is 0.00005° of latitude (≈5.57 m) away, got \(d1)")
            #expect(abs(d3 - 222.6) < 1, "truck-3 is 0.002° of latitude (≈222.6 m) away, got \(d3)")
            let wide = try Self.object(try await client.execute(uri: "/v1/nearby?latitude=52.5219&longitude=13.4132&radius=2000&limit=2", method: .get))
            #expect(try #require(wide["devices"] as? [[String: Any]]).count == 2)
            let all = try Self.object(try await client.execute(uri: "/v1/nearby?latitude=52.5219&longitude=13.4132&radius=2000", method: .get))
            #expect(try #require(all["devices"] as? [[String: Any]]).map { $0["device"] as? String } == ["truck-1", "truck-3", "truck-2"])

            for bad in ["latitude=91&longitude=0&radius=1", "latitude=0&longitude=0", "latitude=0&longitude=0&radius=-1",
                        "latitude=x&longitude=0&radius=1", "latitude=0&longitude=0&radius=1&limit=0"] {
                let r = try await client.execute(uri: "/v1/nearby?\(bad)", method: .get)
                #expect(r.status == .badRequest, "\(bad): \(r.status)")
            }
        }
    }

    @Test func devicesArePaged() async throws {
        try await TestServer().run { client in
            let lines = (0..<7).map { Self.fix("d\($0)", 0, 52.0 + Double($0) * 0.01, 13.0) }.joined(separator: "\n")
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines)).status == .ok)
            var names: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let uri = "/v1/devices?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try Self.object(try await client.execute(uri: uri, method: .get))
                let devices = try #require(page["devices"] as? [[String: Any]])
                #expect(devices.count <= 3)
                names += devices.compactMap { $0["device"] as? String }
                #expect(devices.allSatisfy { $0["lastPosition"] is [String: Any] })
                cursor = page["nextCursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(names.sorted() == (0..<7).map { "d\($0)" })
            #expect(pages == 3)
            #expect(try await client.execute(uri: "/v1/devices?cursor=abc", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/v1/devices?limit=0", method: .get).status == .badRequest)
        }
    }

    @Test func geoJSONRequestBodies() async throws {
        let collection = """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "id": "depot", "properties": {"title": "At the depot", "radius": 100, "notifyOnExit": false},
               "geometry": {"type": "Point", "coordinates": [13.4132, 52.5219]}},
              {"type": "Feature", "properties": {"identifier": "zone", "title": "In the zone"},
               "geometry": {"type": "Polygon", "coordinates": [[[13.40, 52.51], [13.42, 52.51], [13.42, 52.53], [13.40, 52.53], [13.40, 52.51]]]}}
            ]}
            """
        let server = try TestServer()
        try await server.run { client in
            let posted = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: collection))
            #expect(posted.status == .ok, "\(posted.text)")
            #expect(posted.text.contains(#""added":2"#))
            // The response says which GeoJSON defaults the features took (docs/semantics.md).
            #expect(posted.text.contains(#""defaultsApplied":["repeats","body"]"#), "\(posted.text)")
            // Stored and listed in the SPEC §1 form.
            let depot = try await client.execute(uri: "/v1/requests/depot", method: .get)
            #expect(depot.text.contains(#""type":"circle""#) && depot.text.contains(#""notifyOnExit":false"#))
            let zone = try await client.execute(uri: "/v1/requests/zone", method: .get)
            #expect(zone.text.contains(#""type":"polygon""#))

            // A single Feature PUT to a path takes the path's identifier.
            let feature = #"{"type": "Feature", "properties": {"title": "Gate", "radius": 30}, "geometry": {"type": "Point", "coordinates": [13.4140, 52.5220]}}"#
            let put = try await client.execute(uri: "/v1/requests/gate", method: .put, body: ByteBuffer(string: feature))
            #expect(put.status == .created, "\(put.text)")
            #expect(put.text.contains(#""defaultsApplied":["repeats","body"]"#), "\(put.text)")
            #expect(try await client.execute(uri: "/v1/requests/gate", method: .get).text.contains(#""radius":30"#))

            // The requests fire like any other.
            let drive = Self.fix("van", 0, 52.50, 13.4132) + "\n" + Self.fix("van", 60, 52.5219, 13.4132)
            let fired = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: drive))
            #expect(fired.status == .ok)
            let lines = try await server.sinkLines(atLeast: 2)
            #expect(lines.contains { $0.contains(#""identifier":"depot""#) } && lines.contains { $0.contains(#""identifier":"zone""#) }, "\(lines)")

            // A feature the decoder cannot read names its place in the collection and the property the user wrote.
            let bad = #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "p", "properties": {"radius": -5}, "geometry": {"type": "Point", "coordinates": [13.4, 52.5]}}]}"#
            let refused = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: bad))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("features[0].properties.radius"), "\(refused.text)")
            #expect(!refused.text.contains("trigger.region"), "\(refused.text)")

            // ?idProperty= names features by a property of theirs, as QGIS exports them.
            let qgis = #"{"type": "FeatureCollection", "name": "zones", "features": [{"type": "Feature", "properties": {"fid": 7, "name": "Yard"}, "geometry": {"type": "MultiPolygon", "coordinates": [[[[13.46, 52.49], [13.47, 52.49], [13.47, 52.50], [13.46, 52.49]]]]}}]}"#
            let named = try await client.execute(uri: "/v1/requests?idProperty=fid", method: .post, body: ByteBuffer(string: qgis))
            #expect(named.status == .ok, "\(named.text)")
            #expect(named.text.contains(#""identifiers":["7"]"#), "\(named.text)")
            #expect(try await client.execute(uri: "/v1/requests/7", method: .get).text.contains(#""repeats":true"#))
        }
    }
}
