import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TestSupport

/// Identifiers and device ids are text: percent-decoded in paths, refused when not UTF-8 (never replaced), and a
/// JSON body that names a key twice is refused rather than read one way here and another there.
@Suite struct TextEncodingTests {
    /// Every byte but RFC 3986's unreserved ones percent-encoded.
    static func encoded(_ s: String) -> String {
        s.utf8.map { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
                ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
        }.joined()
    }

    static let awkward = ["a b", "a/b", "a?b", "a#b", "a%b", "é", "a+b", "x/../y"]

    @Test func identifiersInPathsArePercentDecoded() async throws {
        try await TestServer().run { client in
            let batch = "[" + Self.awkward.map { requestJSON($0) }.joined(separator: ",") + "]"
            #expect(try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: batch)).status == .ok)
            for id in Self.awkward {
                let path = "/v1/requests/" + Self.encoded(id)
                let got = try await client.execute(uri: path, method: .get)
                #expect(got.status == .ok, "GET \(path): \(got.text)")
                #expect(got.text.contains(#""identifier":"\#(id)""#), "\(got.text)")
                // PUT by the encoded path replaces the same request (the body may name it, decoded).
                let put = try await client.execute(uri: path, method: .put, body: ByteBuffer(string: requestJSON(id)))
                #expect(put.status == .ok, "PUT \(path): \(put.text)")
                #expect(try await client.execute(uri: path, method: .delete).status == .noContent, "DELETE \(path)")
            }
            // A PUT names the request by the decoded path.
            #expect(try await client.execute(uri: "/v1/requests/new%20one", method: .put, body: ByteBuffer(string: requestJSON())).status == .created)
            #expect(try await client.execute(uri: "/v1/requests/new%20one", method: .get).text.contains(#""identifier":"new one""#))
            let bad = try await client.execute(uri: "/v1/requests/a%zz", method: .get)
            #expect(bad.status == .badRequest && bad.text.contains("malformed percent escape"))
        }
    }

    @Test func deviceIdsInPathsArePercentDecoded() async throws {
        try await TestServer().run { client in
            let devices = Self.awkward
            let lines = devices.map { d in
                #"{"device":"\#(d)","timestamp":1760000000,"latitude":52.5,"longitude":13.4}"#
            }.joined(separator: "\n")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines))
            #expect(r.text.hasPrefix(#"{"accepted":\#(devices.count),"#), "\(r.text)")
            for d in devices {
                let got = try await client.execute(uri: "/v1/devices/" + Self.encoded(d), method: .get)
                #expect(got.status == .ok, "device \(d): \(got.text)")
                #expect(got.text.contains(#""device":"\#(d)""#))
            }
        }
    }

    @Test func invalidUTF8IsRefusedNeverReplaced() async throws {
        try await TestServer().run { client in
            // Two devices that differ only in an invalid byte: before, both became "x\u{FFFD}".
            var body: [UInt8] = Array(#"{"device":"x"#.utf8) + [0xFF] + Array(#"","timestamp":1760000000,"latitude":52.5,"longitude":13.4}"#.utf8)
            body += [0x0A] + Array(#"{"device":"x"#.utf8) + [0xFE] + Array(#"","timestamp":1700000000,"latitude":52.5,"longitude":13.4}"#.utf8)
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(bytes: body))
            #expect(r.status == .unprocessableContent)
            #expect(r.text.contains(#""accepted":0,"rejected":2,"#), "\(r.text)")
            #expect(r.text.contains("invalid UTF-8"))
            #expect(try await client.execute(uri: "/v1/devices/x%EF%BF%BD", method: .get).status == .notFound)
            let metrics = try await client.execute(uri: "/metrics", method: .get).text
            #expect(metrics.contains(#"geotrigger_rejections_total{reason="invalid-utf8"}"#))

            // A request body and a path alike.
            let parts = requestJSON("u", title: "TITLE").components(separatedBy: "TITLE")
            let request = Array(parts[0].utf8) + [0xC3, 0x28] + Array(parts[1].utf8)
            let put = try await client.execute(uri: "/v1/requests/u", method: .put, body: ByteBuffer(bytes: request))
            #expect(put.status == .badRequest && put.text.contains("not UTF-8"), "\(put.text)")
            let path = try await client.execute(uri: "/v1/devices/x%FF", method: .get)
            #expect(path.status == .badRequest && path.text.contains("not UTF-8"), "\(path.text)")
        }
    }

    @Test func duplicateKeysAreRefusedWithTheirPath() async throws {
        try await TestServer().run { client in
            let twice = requestJSON("r").replacingOccurrences(of: #""radius": 100"#, with: #""radius": 100, "radius": -1"#)
            let put = try await client.execute(uri: "/v1/requests/r", method: .put, body: ByteBuffer(string: twice))
            #expect(put.status == .unprocessableContent, "\(put.text)")
            #expect(put.text.contains(#""path":"trigger.region.radius""#), "\(put.text)")
            #expect(try await client.execute(uri: "/v1/requests/r", method: .get).status == .notFound)
            let post = try await client.execute(uri: "/v1/requests", method: .post, body: ByteBuffer(string: "[" + requestJSON("a") + "," + twice + "]"))
            #expect(post.status == .unprocessableContent && post.text.contains(#""path":"[1].trigger.region.radius""#), "\(post.text)")

            // Fixes: the same rule, on the fast path and with a nested object alike.
            let lines = [
                #"{"device":"d","timestamp":1760000000,"latitude":52.5,"latitude":1,"longitude":13.4}"#,
                #"{"device":"d","timestamp":1760000001,"latitude":52.5,"longitude":13.4,"extra":{"a":1,"a":2}}"#,
                #"{"device":"d","timestamp":1760000002,"latitude":52.5,"longitude":13.4,"note":"x","note":"y"}"#,
            ].joined(separator: "\n")
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines))
            #expect(r.status == .unprocessableContent)
            #expect(r.text.contains(#""accepted":0,"rejected":3,"#), "\(r.text)")
            #expect(r.text.contains(#""field":"latitude""#) && r.text.contains(#""field":"extra.a""#) && r.text.contains(#""field":"note""#))
            #expect(r.text.contains("duplicate key"))
        }
    }

    @Test func deviceIdsAreBounded() async throws {
        try await TestServer().run { client in
            let long = String(repeating: "d", count: 257), fits = String(repeating: "d", count: 256)
            let lines = [long, fits].map { #"{"device":"\#($0)","timestamp":1760000000,"latitude":52.5,"longitude":13.4}"# }
            let r = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: lines.joined(separator: "\n")))
            #expect(r.text.hasPrefix(#"{"accepted":1,"rejected":1,"errors":[{"line":1,"field":"device","reason":"the device id is 257 bytes long"#), "\(r.text)")
        }
    }
}
