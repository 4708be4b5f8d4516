import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// The apps fleets run, posting as they post: OwnTracks in HTTP mode (`POST /v1/owntracks`, Basic credentials,
/// X-Limit-U/D naming) and Traccar Client / OsmAnd (`GET`/`POST` at `/` and `/v1/osmand`: query, form, JSON), with
/// a fixture per message kind from each app's documentation.
@Suite struct AppEndpointTests {
    static let token = "s3cret-token"
    static var basic: HTTPFields { [.authorization: "Basic " + Data("jane:\(token)".utf8).base64EncodedString()] }

    /// OwnTracks' documented location message (booklet, "JSON": `_type`, `tid`, `lat`, `lon`, `tst`, `acc`, …).
    static func location(_ lat: Double, _ tst: Int, tid: String = "jp") -> String {
        #"{"_type":"location","acc":12,"alt":48,"batt":81,"bs":1,"conn":"w","created_at":\#(tst),"lat":\#(lat),"lon":13.4132,"t":"u","tid":"\#(tid)","tst":\#(tst),"vac":3,"vel":0}"#
    }

    @Test func ownTracksLocationsFireUnderTheRecordersDeviceName() async throws {
        let server = try TestServer()
        try await server.run(token: Self.token) { (client: any TestClientProtocol) async throws in
            var auth = Self.basic
            #expect(try await client.execute(uri: "/v1/requests", method: .post, headers: auth, body: ByteBuffer(string: requestJSON("alex"))).status == .ok)
            auth[.init("X-Limit-U")!] = "jane"
            auth[.init("X-Limit-D")!] = "phone"
            for (lat, tst) in [(52.53, 1_760_000_000), (52.5219, 1_760_000_060)] {
                let r = try await client.execute(uri: "/v1/owntracks", method: .post, headers: auth, body: ByteBuffer(string: Self.location(lat, tst)))
                #expect(r.status == .ok, "\(r.text)")
                #expect(r.text == "[]")
            }
            let lines = try await server.sinkLines(atLeast: 1)
            #expect(lines.contains { $0.contains(#""device":"jane/phone""#) && $0.contains(#""event":"entry""#) }, "\(lines)")
            // Without the headers the message's tid names the device.
            let tid = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic, body: ByteBuffer(string: Self.location(52.53, 1_760_000_000, tid: "zz")))
            #expect(tid.status == .ok)
            #expect(try await client.execute(uri: "/v1/devices/zz", method: .get, headers: Self.basic).status == .ok)
        }
    }

    @Test func otherOwnTracksMessagesAreAcceptedCountedAndIgnored() async throws {
        let messages = [
            ("transition", #"{"_type":"transition","wtst":1760000000,"lat":52.52,"lon":13.41,"tst":1760000030,"acc":10,"tid":"jp","event":"enter","desc":"Office","t":"c"}"#),
            ("lwt", #"{"_type":"lwt","tst":1760000000}"#),
            ("waypoint", #"{"_type":"waypoint","tst":1760000000,"lat":52.52,"lon":13.41,"rad":100,"desc":"Office"}"#),
            ("status", #"{"_type":"status","android":{"hib":1,"bo":1,"loc":0,"ps":0,"wifi":1}}"#),
        ]
        try await TestServer().run(token: Self.token) { (client: any TestClientProtocol) async throws in
            for (type, body) in messages {
                let r = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic, body: ByteBuffer(string: body))
                #expect(r.status == .ok && r.text == "[]", "\(type): \(r.status) \(r.text)")
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: Self.basic).text
            for (type, _) in messages.prefix(3) {
                #expect(metrics.contains(#"geotrigger_owntracks_ignored_total{type="\#(type)"}"#), "\(type)")
            }
            // A location it cannot take is refused with the reason; the app keeps it (and an empty body says nothing).
            let bad = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic, body: ByteBuffer(string: Self.location(95, 1_760_000_000)))
            #expect(bad.status == .unprocessableContent && bad.text.contains("lat"), "\(bad.text)")
            let empty = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic, body: ByteBuffer(string: ""))
            #expect(empty.status == .unprocessableContent)
        }
    }

    @Test func credentialsBearerOrBasicWithTheTokenAsPassword() async throws {
        try await TestServer().run(token: Self.token) { (client: any TestClientProtocol) async throws in
            let body = Self.location(52.53, 1_760_000_000)
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, body: ByteBuffer(string: body)).status == .unauthorized)
            let wrong: HTTPFields = [.authorization: "Basic " + Data("jane:guess".utf8).base64EncodedString()]
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: wrong, body: ByteBuffer(string: body)).status == .unauthorized)
            let garbage: HTTPFields = [.authorization: "Basic !!!"]
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: garbage, body: ByteBuffer(string: body)).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic, body: ByteBuffer(string: body)).status == .ok)
            let bearer: HTTPFields = [.authorization: "Bearer \(Self.token)"]
            #expect(try await client.execute(uri: "/v1/devices/jp", method: .get, headers: bearer).status == .ok)
            #expect(try await client.execute(uri: "/?id=x&lat=52.5&lon=13.4&timestamp=1760000000", method: .get).status == .unauthorized)
        }
    }

    @Test func osmAndQueryFormAndJSONEachFire() async throws {
        let server = try TestServer()
        let clientJSON = { @Sendable (device: String, lat: Double, time: String) in
            #"{"location":{"timestamp":"\#(time)","coords":{"latitude":\#(lat),"longitude":13.4132,"accuracy":8,"speed":-1,"heading":-1,"altitude":40},"is_moving":true,"odometer":0,"event":"motionchange","battery":{"level":0.8,"is_charging":false},"activity":{"type":"still"}},"device_id":"\#(device)"}"#
        }
        let forwarded = { @Sendable (lat: Double, time: String) in
            #"{"position":{"id":1,"deviceId":7,"protocol":"osmand","fixTime":"\#(time)","valid":true,"latitude":\#(lat),"longitude":13.4132,"speed":0,"course":0,"accuracy":0},"device":{"id":7,"name":"Van","uniqueId":"van-7"}}"#
        }
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        let json: HTTPFields = [.contentType: "application/json"]
        try await server.run { client in
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: requestJSON("alex"))).status == .ok)
            // Unix seconds, then milliseconds; speed in knots, bearing, altitude, accuracy, hdop, battery.
            let q1 = try await client.execute(uri: "/?id=q1&lat=52.53&lon=13.4132&timestamp=1760000000&speed=3.2&bearing=90&altitude=40&accuracy=9&hdop=0.9&batt=77", method: .get)
            #expect(q1.status == .ok && q1.text.isEmpty, "\(q1.text)")
            #expect(try await client.execute(uri: "/?deviceid=q1&lat=52.5219&lon=13.4132&timestamp=1760000060000", method: .get).status == .ok)
            // A form body (ISO 8601 time), posted to /v1/osmand.
            _ = try await client.execute(uri: "/v1/osmand", method: .post, headers: form, body: ByteBuffer(string: "id=f+1&lat=52.53&lon=13.4132&timestamp=2025-10-09T08%3A53%3A20Z"))
            let f2 = try await client.execute(uri: "/v1/osmand", method: .post, headers: form, body: ByteBuffer(string: "id=f+1&lat=52.5219&lon=13.4132&timestamp=2025-10-09T08%3A54%3A20Z"))
            #expect(f2.status == .ok, "\(f2.text)")
            // Traccar Client 8+ JSON, and Traccar's event forwarding.
            for (lat, t) in [(52.53, "2025-10-09T08:53:20.000Z"), (52.5219, "2025-10-09T08:54:20.000Z")] {
                let c = try await client.execute(uri: "/", method: .post, headers: json, body: ByteBuffer(string: clientJSON("tc-9", lat, t)))
                #expect(c.status == .ok, "\(c.text)")
                let v = try await client.execute(uri: "/v1/osmand", method: .post, headers: json, body: ByteBuffer(string: forwarded(lat, t)))
                #expect(v.status == .ok, "\(v.text)")
            }
            let lines = try await server.sinkLines(atLeast: 4)
            for device in ["q1", "f 1", "tc-9", "van-7"] {
                #expect(lines.contains { $0.contains(#""device":"\#(device)""#) && $0.contains(#""event":"entry""#) }, "no entry for \(device)")
            }
            // What cannot be a position is refused with the field and the reason.
            let noLatitude = try await client.execute(uri: "/?id=q1&lon=13.4&timestamp=1760000100", method: .get)
            #expect(noLatitude.status == .badRequest && noLatitude.text.contains("lat"), "\(noLatitude.text)")
            let nothing = try await client.execute(uri: "/", method: .get)
            #expect(nothing.status == .badRequest)
            // An older position is acknowledged (Traccar Client resends until it hears 200) and refused by the engine.
            let late = try await client.execute(uri: "/?id=q1&lat=52.5&lon=13.4&timestamp=1700000000", method: .get)
            #expect(late.status == .ok, "\(late.text)")
        }
    }
}
