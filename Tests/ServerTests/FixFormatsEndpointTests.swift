import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `POST /v1/fixes` in every format the CLI reads (`?format=` or the Content-Type), each firing like NDJSON; a body
/// of which nothing is accepted is a 422 with every record's reason, never a 200.
@Suite struct FixFormatsEndpointTests {
    /// The circle of `requestJSON()` (52.5219, 13.4132, 100 m): a fix 940 m north, then one at the centre.
    static let outside = (latitude: 52.53, longitude: 13.4132), inside = (latitude: 52.5219, longitude: 13.4132)

    static func nmea(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + "*" + String(format: "%02X", sum)
    }

    /// `5231.800,N`: degrees and decimal minutes, as NMEA writes them.
    static func nmeaAngle(_ value: Double, degreesWidth: Int) -> String {
        let degrees = Int(value), minutes = (value - Double(degrees)) * 60
        return String(format: "%0\(degreesWidth)d%06.3f", degrees, minutes)
    }

    static func rmc(_ time: String, _ p: (latitude: Double, longitude: Double)) -> String {
        nmea("GPRMC,\(time),A,\(nmeaAngle(p.latitude, degreesWidth: 2)),N,\(nmeaAngle(p.longitude, degreesWidth: 3)),E,0.0,0.0,091025,,,A")
    }

    static let bodies: [(name: String, uri: String, contentType: String?, body: String, device: String)] = [
        ("ndjson by content type", "/v1/fixes", "application/x-ndjson",
         #"{"device":"nd","timestamp":1760000000,"latitude":52.53,"longitude":13.4132}"# + "\n"
            + #"{"device":"nd","timestamp":1760000060,"latitude":52.5219,"longitude":13.4132}"#, "nd"),
        ("csv with a column mapping", "/v1/fixes?format=csv&columns=device%3DVehicle,timestamp%3D%22GPS%20Time%22", nil,
         "Vehicle,GPS Time,Lat,Lon\nbus-7,2025-10-09T08:53:20Z,52.53,13.4132\nbus-7,2025-10-09T08:54:20Z,52.5219,13.4132\n", "bus-7"),
        ("csv by content type", "/v1/fixes", "text/csv",
         "device,timestamp,latitude,longitude\ncsv-1,1760000000,52.53,13.4132\ncsv-1,1760000060,52.5219,13.4132\n", "csv-1"),
        ("gpx named by the query", "/v1/fixes?format=gpx&device=hiker", nil, """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Morning</name><trkseg>
            <trkpt lat="52.53" lon="13.4132"><time>2025-10-09T08:53:20Z</time></trkpt>
            <trkpt lat="52.5219" lon="13.4132"><time>2025-10-09T08:54:20Z</time></trkpt>
            </trkseg></trk></gpx>
            """, "hiker"),
        ("gpx by content type", "/v1/fixes?device=walker", "application/gpx+xml", """
            <gpx version="1.1" creator="test"><trk><trkseg><trkpt lat="52.53" lon="13.4132"><time>2025-10-09T08:53:20Z</time></trkpt>
            <trkpt lat="52.5219" lon="13.4132"><time>2025-10-09T08:54:20Z</time></trkpt></trkseg></trk></gpx>
            """, "walker"),
        ("nmea", "/v1/fixes?format=nmea&device=boat", nil,
         rmc("085320.00", outside) + "\r\n" + rmc("085420.00", inside) + "\r\n", "boat"),
        ("owntracks", "/v1/fixes?format=owntracks", nil,
         #"{"_type":"location","tid":"jp","lat":52.53,"lon":13.4132,"tst":1760000000,"acc":5}"# + "\n"
            + #"{"_type":"transition","event":"enter","tst":1760000030,"lat":52.52,"lon":13.41,"acc":5,"tid":"jp","wtst":1}"# + "\n"
            + #"{"_type":"location","tid":"jp","lat":52.5219,"lon":13.4132,"tst":1760000060,"acc":5}"#, "jp"),
        ("traccar", "/v1/fixes?format=traccar", nil,
         #"[{"deviceId":42,"fixTime":"2025-10-09T08:53:20Z","latitude":52.53,"longitude":13.4132,"valid":true},"#
            + #"{"deviceId":42,"fixTime":"2025-10-09T08:54:20Z","latitude":52.5219,"longitude":13.4132,"valid":true}]"#, "42"),
    ]

    @Test func everyFormatFiresLikeNDJSON() async throws {
        let server = try TestServer()
        try await server.run { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: requestJSON("alex"))).status == .ok)
            for (k, b) in Self.bodies.enumerated() {
                let headers: HTTPFields = b.contentType.map { [.contentType: $0] } ?? [:]
                let r = try await client.execute(uri: b.uri, method: .post, headers: headers, body: ByteBuffer(string: b.body))
                #expect(r.status == .ok, "\(b.name): \(r.text)")
                #expect(r.text.hasPrefix(#"{"accepted":2,"rejected":0"#), "\(b.name): \(r.text)")
                let lines = try await server.sinkLines(atLeast: k + 1)
                #expect(lines.contains { $0.contains(#""device":"\#(b.device)""#) && $0.contains(#""event":"entry""#) },
                        "\(b.name): no entry for \(b.device)")
            }
        }
    }

    @Test func aBodyWithNothingAcceptedIs422WithEveryReason() async throws {
        try await TestServer().run { client in
            let csv = "device,timestamp,latitude,longitude\nv,1760000000,95.0,13.4\nv,yesterday,52.5,13.4\n"
            let r = try await client.execute(uri: "/v1/fixes?format=csv", method: .post, body: ByteBuffer(string: csv))
            #expect(r.status == .unprocessableContent, "\(r.text)")
            #expect(r.headers[.contentType] == "application/problem+json")
            let problem = try #require(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any])
            #expect(problem["status"] as? Int == 422 && problem["accepted"] as? Int == 0 && problem["rejected"] as? Int == 2)
            let errors = try #require(problem["errors"] as? [[String: Any]])
            #expect(errors.map { $0["line"] as? Int } == [2, 3], "\(errors)")
            #expect(errors.map { $0["field"] as? String } == ["latitude", "timestamp"], "\(errors)")
            // An empty body holds no record: 422 as well, not a 200 saying nothing happened.
            let empty = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: "\n"))
            #expect(empty.status == .unprocessableContent && empty.text.contains("no record"), "\(empty.text)")
            // One good record among bad ones: 200 with the rest listed.
            let mixed = try await client.execute(uri: "/v1/fixes", method: .post,
                                                 body: ByteBuffer(string: #"{"device":"m","timestamp":1760000000,"latitude":52.5,"longitude":13.4}"# + "\n{}"))
            #expect(mixed.status == .ok && mixed.text.hasPrefix(#"{"accepted":1,"rejected":1"#), "\(mixed.text)")
        }
    }

    /// `curl -d @export.csv` labels the body `application/x-www-form-urlencoded`: the answer says which types the
    /// route reads, instead of a JSON syntax error at byte 0. JSON under that label is still read.
    @Test func aBodyItsContentTypeDoesNotDescribeIs415WithTheTypesTheRouteReads() async throws {
        try await TestServer().run { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let csv = "device,timestamp,latitude,longitude\nc,1760000000,52.53,13.4132\n"
            let r = try await client.execute(uri: "/v1/fixes", method: .post, headers: form, body: ByteBuffer(string: csv))
            #expect(r.status == .unsupportedMediaType, "\(r.text)")
            let problem = try #require(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any])
            #expect(problem["contentType"] as? String == "application/x-www-form-urlencoded")
            let detail = try #require(problem["detail"] as? String)
            #expect(detail.hasPrefix("Content-Type 'application/x-www-form-urlencoded' is not one this route reads, and the body "
                                     + "does not start as JSON; send application/x-ndjson or application/json (NDJSON or a JSON "
                                     + "array), text/csv, text/tab-separated-values, application/gpx+xml or application/x-nmea; "
                                     + "or name the format with ?format=gpx|nmea|csv|ndjson|owntracks|traccar|gpsd"), "\(detail)")
            let json = try await client.execute(uri: "/v1/fixes", method: .post, headers: form,
                                                body: ByteBuffer(string: #"{"device":"c","timestamp":1760000000,"latitude":52.53,"longitude":13.4132}"#))
            #expect(json.status == .ok, "\(json.text)")
            // The same label with ?format= is read as the format says.
            let named = try await client.execute(uri: "/v1/fixes?format=csv", method: .post, headers: form, body: ByteBuffer(string: csv))
            #expect(named.status == .ok, "\(named.text)")
            // The other JSON routes say what they read.
            for (uri, accepts) in [("/v1/sightings", "application/x-ndjson or application/json"), ("/v1/requests", "application/json"),
                                   ("/v1/owntracks", "application/json (OwnTracks' HTTP mode)")] {
                let other = try await client.execute(uri: uri, method: .post, headers: form, body: ByteBuffer(string: "id=1&lat=52.5"))
                #expect(other.status == .unsupportedMediaType, "\(uri): \(other.text)")
                #expect(other.text.contains("send \(accepts). (curl -d sends"), "\(uri): \(other.text)")
            }
        }
    }

    @Test func aBinaryBodyIsRefusedAsBinaryWithoutItsBytes() async throws {
        try await TestServer().run { client in
            let bytes = Array("device,timestamp\n".utf8) + [0, 0x1B, 0x5B, 0xFF]
            let csv = try await client.execute(uri: "/v1/fixes", method: .post, headers: [.contentType: "text/csv"],
                                               body: ByteBuffer(bytes: bytes))
            #expect(csv.status == .unsupportedMediaType, "\(csv.text)")
            #expect(csv.text.contains(#""detail":"the body is not text (a NUL byte at byte 17); this route reads text formats in UTF-8""#),
                    "\(csv.text)")
            let ndjson = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(bytes: bytes))
            #expect(ndjson.status == .unsupportedMediaType)
            // Bytes that are not UTF-8 in a CSV body: the file is in another encoding, or not text.
            let latin1 = Array("device,timestamp,latitude,longitude\nZ".utf8) + [0xFC] + Array("rich,1760000000,47.37,8.54\n".utf8)
            let encoded = try await client.execute(uri: "/v1/fixes?format=csv", method: .post, body: ByteBuffer(bytes: latin1))
            #expect(encoded.status == .unsupportedMediaType && encoded.text.contains("a byte that is not UTF-8 at byte 37"), "\(encoded.text)")
        }
    }

    @Test func badFormatParametersAreRefused() async throws {
        try await TestServer().run { client in
            let unknown = try await client.execute(uri: "/v1/fixes?format=kml", method: .post, body: ByteBuffer(string: "x"))
            #expect(unknown.status == .badRequest && unknown.text.contains("gpx, nmea, csv, ndjson, owntracks, traccar, gpsd"), "\(unknown.text)")
            let misplaced = try await client.execute(uri: "/v1/fixes?format=gpx&columns=device%3DV", method: .post, body: ByteBuffer(string: "x"))
            #expect(misplaced.status == .badRequest)
            let mapping = try await client.execute(uri: "/v1/fixes?format=csv&columns=colour%3DRed", method: .post, body: ByteBuffer(string: "x"))
            #expect(mapping.status == .badRequest && mapping.text.contains("columns"), "\(mapping.text)")
        }
    }
}
