import Foundation
import Hummingbird
import HummingbirdTesting
import Server
import Testing

/// `--cors-origin` against a real serve: no CORS headers without it; with it, preflights and responses for the
/// allowed origins only.
@Suite struct CORSTests {
    static let allowed = "https://app.example.com"

    static func corsHeaders(_ r: TestResponse) -> [String] {
        r.headers.filter { $0.name.canonicalName.hasPrefix("access-control-") }.map { "\($0.name.canonicalName): \($0.value)" }
    }

    static let preflight: HTTPFields = [.origin: allowed, .accessControlRequestMethod: "POST",
                                        .accessControlRequestHeaders: "authorization, content-type"]

    @Test func offByDefault() async throws {
        try await TestServer().run { client in
            let get = try await client.execute(uri: "/v1/requests", method: .get, headers: [.origin: Self.allowed])
            #expect(get.status == .ok && Self.corsHeaders(get).isEmpty, "\(Self.corsHeaders(get))")
            let options = try await client.execute(uri: "/v1/requests", method: .options, headers: Self.preflight)
            #expect(Self.corsHeaders(options).isEmpty && options.status != .noContent, "\(options.status)")
        }
    }

    @Test func allowedOriginsOnlyWithTheFlag() async throws {
        let server = try TestServer()
        var configuration = server.configuration(token: "s3cret")
        configuration.corsOrigins = [Self.allowed, "http://localhost:5173"]
        try await server.run(configuration: configuration) { client in
            // The preflight carries no credential and is answered before the credential check.
            let options = try await client.execute(uri: "/v1/requests", method: .options, headers: Self.preflight)
            #expect(options.status == .noContent)
            #expect(options.headers[.accessControlAllowOrigin] == Self.allowed)
            #expect(options.headers[.accessControlAllowMethods]?.contains("POST") == true)
            #expect(options.headers[.accessControlAllowHeaders]?.lowercased().contains("authorization") == true)
            #expect(options.headers[.accessControlAllowHeaders]?.lowercased().contains("last-event-id") == true)
            // The real request: the origin echoed, on a success and on a problem alike.
            let get = try await client.execute(uri: "/v1/requests", method: .get, headers: [.origin: Self.allowed, .authorization: "Bearer s3cret"])
            #expect(get.status == .ok && get.headers[.accessControlAllowOrigin] == Self.allowed)
            let refused = try await client.execute(uri: "/v1/requests", method: .get, headers: [.origin: "http://localhost:5173"])
            #expect(refused.status == .unauthorized && refused.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            // Another origin: no CORS header at all, preflight or not.
            var other = Self.preflight
            other[.origin] = "https://evil.example.com"
            let otherOptions = try await client.execute(uri: "/v1/requests", method: .options, headers: other)
            #expect(Self.corsHeaders(otherOptions).isEmpty && otherOptions.status != .noContent, "\(Self.corsHeaders(otherOptions))")
            let otherGet = try await client.execute(uri: "/v1/requests", method: .get, headers: [.origin: "https://evil.example.com", .authorization: "Bearer s3cret"])
            #expect(otherGet.status == .ok && Self.corsHeaders(otherGet).isEmpty)
        }
    }

    @Test func theFlagTakesOriginsOnly() async throws {
        let resolved = try await ServeSettings.resolve(flags: ["http.corsOrigin": .strings(["HTTPS://App.Example.com", "http://localhost:5173"])],
                                                       environment: [:], configFile: nil)
        #expect(resolved.configuration.corsOrigins == ["https://app.example.com", "http://localhost:5173"])
        for bad in ["app.example.com", "https://app.example.com/", "https://app.example.com/path", "*", "ftp://x"] {
            await #expect(throws: ServerConfigurationError.self, "\(bad)") {
                _ = try await ServeSettings.resolve(flags: ["http.corsOrigin": .strings([bad])], environment: [:], configFile: nil)
            }
        }
    }
}
