import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Storage
import Testing
import TestSupport

/// Credentials with scopes (docs/service.md, "Credentials and scopes"): created through the admin routes (or the
/// store, as `geotrigger token create` does) on a real server over a real SQLite file; the configured token stays
/// an admin credential.
@Suite struct CredentialTests {
    static let token = "admin-s3cret"
    static let admin: HTTPFields = [.authorization: "Bearer \(token)"]

    static func bearer(_ secret: String) -> HTTPFields { [.authorization: "Bearer \(secret)"] }
    static func basic(_ user: String, _ secret: String) -> HTTPFields {
        [.authorization: "Basic " + Data("\(user):\(secret)".utf8).base64EncodedString()]
    }

    static func object(_ r: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], "\(r.text)")
    }

    /// Creates a credential through `POST /v1/tokens` as the admin; its id and secret.
    static func create(_ client: any TestClientProtocol, scope: String, devices: [String] = [], name: String = "test") async throws -> (id: String, secret: String) {
        let devicesJSON = "[" + devices.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let r = try await client.execute(uri: "/v1/tokens", method: .post, headers: admin,
                                         body: ByteBuffer(string: #"{"scope":"\#(scope)","devices":\#(devicesJSON),"name":"\#(name)"}"#))
        #expect(r.status == .created, "\(r.text)")
        let o = try object(r)
        return (try #require(o["id"] as? String), try #require(o["secret"] as? String))
    }

    static func ownTracks(_ secret: String, user: String, device: String) -> HTTPFields {
        var h = basic(user, secret)
        h[.init("X-Limit-U")!] = user
        h[.init("X-Limit-D")!] = device
        return h
    }

    @Test func deviceCredentialPostsOnlyAsItsOwnDevice() async throws {
        try await TestServer().run(token: Self.token) { client in
            let jane = try await Self.create(client, scope: "device", devices: ["jane/phone"], name: "Jane's phone")
            let location = AppEndpointTests.location(52.53, 1_760_000_000)
            let own = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.ownTracks(jane.secret, user: "jane", device: "phone"),
                                               body: ByteBuffer(string: location))
            #expect(own.status == .ok, "\(own.text)")
            // mallory with Jane's secret, posting as Jane's phone through the headers, is Jane: the device decides.
            let other = try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.ownTracks(jane.secret, user: "bob", device: "phone"),
                                                 body: ByteBuffer(string: AppEndpointTests.location(52.53, 1_760_000_010)))
            #expect(other.status == .forbidden)
            #expect(other.headers[.contentType] == "application/problem+json")
            #expect(other.text.contains("bob/phone"), "\(other.text)")
            // NDJSON: one record of another device refuses the whole body, naming it; nothing of it is taken.
            let body = [fixLine("jane/phone", 100, inside: true), fixLine("bob", 101, inside: true)].joined(separator: "\n")
            let fixes = try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.bearer(jane.secret), body: ByteBuffer(string: body))
            #expect(fixes.status == .forbidden)
            #expect(try Self.object(fixes)["device"] as? String == "bob")
            let state = try Self.object(try await client.execute(uri: "/v1/devices/jane%2Fphone", method: .get, headers: Self.admin))
            #expect(state["lastFix"] as? String == "2025-10-09T08:53:20Z", "\(state)")
            #expect(try await client.execute(uri: "/v1/devices/bob", method: .get, headers: Self.admin).status == .notFound)
            // Also past the records of one commit (`IngestReader.maximumBatch`): the body is held to its end first.
            let long = (0..<5000).map { fixLine("jane/phone", 1000 + $0, inside: false) } + [fixLine("bob", 7000, inside: true)]
            let held = try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.bearer(jane.secret),
                                                body: ByteBuffer(string: long.joined(separator: "\n")))
            #expect(held.status == .forbidden)
            let unchanged = try Self.object(try await client.execute(uri: "/v1/devices/jane%2Fphone", method: .get, headers: Self.admin))
            #expect(unchanged["lastFix"] as? String == "2025-10-09T08:53:20Z", "\(unchanged)")
            // Its own records are taken, as a JSON array too.
            let mine = try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.bearer(jane.secret),
                                                body: ByteBuffer(string: "[" + fixLine("jane/phone", 100, inside: true) + "]"))
            #expect(mine.status == .ok, "\(mine.text)")
            // Sightings and Traccar's `id` alike.
            let sighting = #"{"device": "bob", "timestamp": 1760000200, "uuid": "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", "major": 1, "minor": 2, "rssi": -60}"#
            #expect(try await client.execute(uri: "/v1/sightings", method: .post, headers: Self.bearer(jane.secret), body: ByteBuffer(string: sighting)).status == .forbidden)
            #expect(try await client.execute(uri: "/?id=bob&lat=52.5&lon=13.4&timestamp=1760000300", method: .get,
                                             headers: Self.basic("bob", jane.secret)).status == .forbidden)
            #expect(try await client.execute(uri: "/?id=jane%2Fphone&lat=52.5&lon=13.4&timestamp=1760000300", method: .get,
                                             headers: Self.basic("jane", jane.secret)).status == .ok)
            // The admin (the configured token) posts as anyone.
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.admin, body: ByteBuffer(string: body)).status == .ok)
        }
    }

    @Test func deviceCredentialCannotDeleteRequestsOrReadAnothersPosition() async throws {
        try await TestServer().run(token: Self.token) { client in
            let jane = try await Self.create(client, scope: "device", devices: ["jane/phone"])
            #expect(try await client.execute(uri: "/v1/requests", method: .post, headers: Self.admin, body: ByteBuffer(string: requestJSON("alex"))).status == .ok)
            let fixes = [fixLine("jane/phone", 0, inside: true), fixLine("bob", 1, inside: true)].joined(separator: "\n")
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.admin, body: ByteBuffer(string: fixes)).status == .ok)

            let delete = try await client.execute(uri: "/v1/requests", method: .delete, headers: Self.bearer(jane.secret))
            #expect(delete.status == .forbidden)
            #expect(try Self.object(delete)["needed"] as? String == "admin", "\(delete.text)")
            #expect(try await client.execute(uri: "/v1/requests/alex", method: .delete, headers: Self.bearer(jane.secret)).status == .forbidden)
            for uri in ["/v1/devices/bob", "/v1/devices/bob/regions", "/v1/devices", "/v1/nearby?latitude=52.52&longitude=13.41&radius=1000",
                        "/v1/regions/alex/devices", "/v1/requests", "/v1/tokens", "/metrics"] {
                let r = try await client.execute(uri: uri, method: .get, headers: Self.bearer(jane.secret))
                #expect(r.status == .forbidden, "\(uri): \(r.status) \(r.text)")
                #expect(!r.text.contains("52.52"), "\(uri)")
            }
            // Its own device, however the id is spelled in the path.
            for uri in ["/v1/devices/jane%2Fphone", "/v1/devices/jane/phone", "/v1/devices/jane/phone/regions"] {
                #expect(try await client.execute(uri: uri, method: .get, headers: Self.bearer(jane.secret)).status == .ok, "\(uri)")
            }
            // The admin can.
            #expect(try await client.execute(uri: "/v1/devices/bob", method: .get, headers: Self.admin).status == .ok)
            #expect(try await client.execute(uri: "/v1/requests", method: .delete, headers: Self.admin).status == .ok)
        }
    }

    @Test func ingestAndReadScopesEachDoTheirPart() async throws {
        try await TestServer().run(token: Self.token) { client in
            let ingest = try await Self.create(client, scope: "ingest")
            let read = try await Self.create(client, scope: "read")
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.bearer(ingest.secret),
                                             body: ByteBuffer(string: fixLine("anyone", 0, inside: false))).status == .ok)
            #expect(try await client.execute(uri: "/v1/owntracks", method: .post, headers: Self.basic("x", ingest.secret),
                                             body: ByteBuffer(string: AppEndpointTests.location(52.53, 1_760_000_000))).status == .ok)
            let list = try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(ingest.secret))
            #expect(list.status == .forbidden)
            #expect(try Self.object(list)["scope"] as? String == "ingest")
            #expect(try await client.execute(uri: "/v1/devices", method: .get, headers: Self.bearer(read.secret)).status == .ok)
            #expect(try await client.execute(uri: "/v1/devices/anyone", method: .get, headers: Self.bearer(read.secret)).status == .ok)
            #expect(try await client.execute(uri: "/metrics", method: .get, headers: Self.bearer(read.secret)).status == .ok)
            #expect(try await client.execute(uri: "/v1/fixes", method: .post, headers: Self.bearer(read.secret),
                                             body: ByteBuffer(string: fixLine("anyone", 1, inside: false))).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/requests", method: .post, headers: Self.bearer(read.secret),
                                             body: ByteBuffer(string: requestJSON("x"))).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/tokens", method: .post, headers: Self.bearer(read.secret),
                                             body: ByteBuffer(string: #"{"scope":"admin"}"#)).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/openapi.json", method: .get, headers: Self.bearer(ingest.secret)).status == .ok)

            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: Self.admin).text
            #expect(metrics.contains(#"geotrigger_auth_requests_total{scope="ingest"}"#))
            #expect(metrics.contains(#"geotrigger_auth_refusals_total{reason="scope"}"#))
        }
    }

    @Test func every401CarriesWWWAuthenticate() async throws {
        try await TestServer().run(token: Self.token) { client in
            let revoked = try await Self.create(client, scope: "admin")
            #expect(try await client.execute(uri: "/v1/tokens/\(revoked.id)", method: .delete, headers: Self.admin).status == .noContent)
            let tampered = String(revoked.secret.dropLast()) + (revoked.secret.hasSuffix("A") ? "B" : "A")
            let credentials: [HTTPFields] = [
                [:], [.authorization: "Bearer wrong"], [.authorization: "Basic !!!"], [.authorization: "Digest x"],
                Self.bearer(revoked.secret), Self.bearer(tampered), Self.basic("jane", "gt_000000000000_nothing"),
            ]
            for headers in credentials {
                for (uri, method) in [("/v1/requests", HTTPRequest.Method.get), ("/v1/owntracks", .post), ("/", .get), ("/v1/tokens", .post)] {
                    let r = try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: "{}"))
                    #expect(r.status == .unauthorized, "\(uri) \(headers)")
                    let challenges = r.headers[values: .wwwAuthenticate]
                    #expect(challenges.contains { $0.hasPrefix(#"Bearer realm="geotrigger""#) }, "\(uri) \(headers): \(challenges)")
                    #expect(challenges.contains { $0.hasPrefix("Basic ") } == (uri != "/v1/requests" && uri != "/v1/tokens"), "\(uri): \(challenges)")
                }
            }
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            let metrics = try await client.execute(uri: "/metrics", method: .get, headers: Self.admin).text
            for reason in ["missing", "unknown", "revoked", "mismatch"] {
                #expect(metrics.contains(#"geotrigger_auth_refusals_total{reason="\#(reason)"}"#), "\(reason)")
            }
        }
    }

    @Test func revocationTakesEffectAtOnceAndTheListingHoldsNoSecret() async throws {
        try await TestServer().run(token: Self.token) { client in
            let reader = try await Self.create(client, scope: "read", name: "dashboard")
            #expect(try await client.execute(uri: "/v1/requests", method: .get, headers: Self.bearer(reader.secret)).status == .ok)
            #expect(try await client.execute(uri: "/v1/tokens/\(reader.id)", method: .delete, headers: Self.admin).status == .noContent)
            #expect(try await client.execute(uri: "/v1/requests", method: .get, headers: Self.bearer(reader.secret)).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/tokens/nothing", method: .delete, headers: Self.admin).status == .notFound)
            let list = try await client.execute(uri: "/v1/tokens", method: .get, headers: Self.admin)
            #expect(list.status == .ok)
            #expect(!list.text.contains(reader.secret) && !list.text.contains("secret"), "\(list.text)")
            let tokens = try #require(try Self.object(list)["tokens"] as? [[String: Any]])
            let entry = try #require(tokens.first { $0["id"] as? String == reader.id })
            #expect(entry["name"] as? String == "dashboard")
            #expect(entry["revokedAt"] is String)
            // A device credential needs devices; the others take none.
            for body in [#"{"scope":"device"}"#, #"{"scope":"read","devices":["x"]}"#, #"{"scope":"root"}"#, #"{"devices":[]}"#] {
                let r = try await client.execute(uri: "/v1/tokens", method: .post, headers: Self.admin, body: ByteBuffer(string: body))
                #expect(r.status == .unprocessableContent, "\(body): \(r.text)")
            }
        }
    }

    @Test func secretsAreStoredOnlyAsSaltedHashes() async throws {
        let server = try TestServer()
        let secrets = try await server.run(token: Self.token) { client in
            [try await Self.create(client, scope: "admin").secret, try await Self.create(client, scope: "device", devices: ["a"]).secret]
        }
        var bytes = Data()
        for suffix in ["", "-wal", "-shm"] { bytes += (try? Data(contentsOf: URL(fileURLWithPath: server.database + suffix))) ?? Data() }
        #expect(bytes.count > 0)
        for secret in secrets {
            // The random part, which is the secret proper (the id before it is public).
            let random = try #require(secret.split(separator: "_", maxSplits: 2).last)
            #expect(random.count == 43)
            #expect(bytes.range(of: Data(random.utf8)) == nil)
        }
        let store = try SQLiteStore(path: server.database, logger: Logger(label: "test"))
        defer { try? store.close() }
        let stored = try store.credentials()
        #expect(stored.count == 2)
        #expect(Set(stored.map { $0.salt }).count == 2)
        #expect(stored.allSatisfy { $0.hash.count == 32 && $0.salt.count == 16 })
    }

    @Test func storedCredentialsAloneRequireThemAndNoneLeavesTheServerOpenUntilOneIsCreated() async throws {
        let open = try TestServer()
        try await open.run { (client: any TestClientProtocol) async throws in
            #expect(try await client.execute(uri: "/v1/requests", method: .get).status == .ok)
            // The first credential created through the API turns them on at once.
            let r = try await client.execute(uri: "/v1/tokens", method: .post, body: ByteBuffer(string: #"{"scope":"admin"}"#))
            #expect(r.status == .created)
            let secret = try #require(try Self.object(r)["secret"] as? String)
            #expect(try await client.execute(uri: "/v1/requests", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/requests", method: .get, headers: Self.bearer(secret)).status == .ok)
        }
        let server = try TestServer()
        let created = try {
            let store = try SQLiteStore(path: server.database, logger: Logger(label: "test"))
            defer { try? store.close() }
            return try Credentials(store: store, token: nil).create(name: "ops", scope: .admin, devices: [])
        }()
        try await server.run { client in
            let none = try await client.execute(uri: "/v1/requests", method: .get)
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate] != nil)
            #expect(try await client.execute(uri: "/v1/requests", method: .get, headers: Self.bearer(created.secret)).status == .ok)
        }
    }
}
