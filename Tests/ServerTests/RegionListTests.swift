import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /v1/regions` against a real serve: pages that list every request's region once, and the GeoJSON form.
@Suite struct RegionListTests {
    static func object(_ r: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], "\(r.text)")
    }

    /// 23 requests: circles, polygons and beacons, identifiers in no particular order.
    static let requests: String = {
        var items: [String] = []
        for k in 0..<23 {
            let id = "req-\((k * 7) % 23)"
            let region: String
            switch k % 3 {
            case 0:
                region = #"{"type": "circle", "id": "c\#(k)", "name": "Circle \#(k)", "center": {"latitude": 52.5, "longitude": 13.\#(k)}, "radius": \#(100 + k)}"#
            case 1:
                region = #"{"type": "polygon", "id": "p\#(k)", "geometry": {"type": "Polygon", "coordinates": [[[13.0, 52.0], [13.1, 52.0], [13.1, 52.1], [13.0, 52.0]]]}}"#
            default:
                region = #"{"type": "beacon", "id": "b\#(k)", "uuid": "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", "major": \#(k)}"#
            }
            items.append(#"{"identifier": "\#(id)", "content": {"title": "t"}, "trigger": {"type": "location", "repeats": true, "region": \#(region)}}"#)
        }
        return "[" + items.joined(separator: ",") + "]"
    }()

    @Test func pagesListEveryRegionOnceAndGeoJSONIsAFeatureCollection() async throws {
        try await TestServer().run { client in
            let posted = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: Self.requests))
            #expect(posted.status == .ok, "\(posted.text)")
            for geo in [false, true] {
                var seen: [String] = [], cursor: String?, pages = 0
                repeat {
                    let uri = "/v1/regions?limit=5" + (cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? "")
                    let r = try await client.execute(uri: uri, method: .get, headers: geo ? [.accept: "application/geo+json"] : [:])
                    #expect(r.status == .ok, "\(r.text)")
                    #expect(r.headers[.contentType] == (geo ? "application/geo+json" : "application/json"))
                    let page = try Self.object(r)
                    if geo {
                        #expect(page["type"] as? String == "FeatureCollection")
                        for f in try #require(page["features"] as? [[String: Any]]) {
                            #expect(f["type"] as? String == "Feature")
                            let properties = try #require(f["properties"] as? [String: Any])
                            let region = try #require(properties["regionId"] as? String)
                            switch region.first {
                            case "c":
                                let g = try #require(f["geometry"] as? [String: Any])
                                #expect(g["type"] as? String == "Point" && (g["coordinates"] as? [Double])?.count == 2)
                                #expect(properties["radius"] as? Double != nil && properties["name"] as? String != nil)
                            case "p":
                                #expect((f["geometry"] as? [String: Any])?["type"] as? String == "Polygon")
                            default:
                                #expect(f["geometry"] is NSNull && properties["uuid"] as? String != nil, "\(f)")
                            }
                            seen.append(try #require(properties["identifier"] as? String))
                        }
                    } else {
                        for item in try #require(page["regions"] as? [[String: Any]]) {
                            #expect((item["region"] as? [String: Any])?["id"] as? String != nil)
                            seen.append(try #require(item["identifier"] as? String))
                        }
                    }
                    cursor = page["nextCursor"] as? String
                    pages += 1
                } while cursor != nil && pages < 100
                #expect(seen.count == 23 && Set(seen) == Set((0..<23).map { "req-\($0)" }), "\(seen)")
                #expect(seen == seen.sorted())
            }
        }
    }

    @Test func theGeoJSONReadsBackAsTheSameRegions() async throws {
        try await TestServer().run { client in
            let circle = #"{"identifier": "depot", "content": {"title": "t"}, "trigger": {"type": "location", "repeats": true, "region": {"type": "circle", "id": "d", "name": "Depot", "center": {"latitude": 52.5, "longitude": 13.4}, "radius": 150}}}"#
            #expect(try await client.execute(uri: "/v1/requests/depot", method: .put, body: ByteBuffer(string: circle)).status == .created)
            let geo = try await client.execute(uri: "/v1/regions", method: .get, headers: [.accept: "application/geo+json"])
            // Posted back (the request form the GeoJSON import writes), the region is the one listed.
            #expect(try await client.execute(uri: "/v1/requests", method: .delete).status == .ok)
            let back = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: geo.text))
            #expect(back.status == .ok, "\(back.text)")
            let listed = try Self.object(try await client.execute(uri: "/v1/regions", method: .get))
            let region = try #require((listed["regions"] as? [[String: Any]])?.first?["region"] as? [String: Any])
            #expect(region["id"] as? String == "d" && region["name"] as? String == "Depot" && region["radius"] as? Double == 150)
            #expect((region["center"] as? [String: Any])?["latitude"] as? Double == 52.5)
        }
    }

    @Test func badPagingIsAPreciseProblem() async throws {
        try await TestServer().run { client in
            for (uri, words) in [("/v1/regions?limit=0", "limit must be 1…1000"), ("/v1/regions?limit=x", "limit"),
                                 ("/v1/regions?cursor=", "cursor: empty"), ("/v1/regions?offset=3", "unknown parameter 'offset'")] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .badRequest && r.text.contains(words), "\(uri): \(r.text)")
            }
        }
    }
}
