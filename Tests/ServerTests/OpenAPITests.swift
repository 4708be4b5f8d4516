import JSON
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TriggerEngine

/// `GET /v1/openapi.json` serves the repository's document, and the document describes exactly the routes the
/// router has.
@Suite struct OpenAPITests {
    static let repositoryDocument = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Server/openapi.json")

    @Test func servedDocumentIsTheRepositoryFile() async throws {
        let file = try Data(contentsOf: Self.repositoryDocument)
        try await TestServer().run { client in
            let r = try await client.execute(uri: "/v1/openapi.json", method: .get)
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/json")
            #expect(Array(r.body.readableBytesView) == Array(file))
        }
    }

    @Test func documentListsEveryRegisteredRouteAndNoOther() throws {
        let server = try TestServer()
        var logger = Logger(label: "openapi-tests")
        logger.logLevel = .warning
        let router = try GeoTriggerServer(configuration: server.configuration(), logger: logger).makeRouter()
        // Hummingbird writes a capture as `:name` or `{name}`; OpenAPI as `{name}`.
        // `devices/**` (ids with raw slashes) has no OpenAPI form: it is the same operations as `devices/{device}`
        // and `devices/{device}/regions`, whose parameter says so.
        let registered = Set(router.routes.filter { !"\($0.path)".contains("**") }.map { route -> String in
            let path = "\(route.path)".split(separator: "/").map { c in c.hasPrefix(":") ? "{\(c.dropFirst())}" : String(c) }
            return "\(route.method.rawValue.lowercased()) /" + path.joined(separator: "/")
        })
        let json = try JSONParser.parse(Array(try Data(contentsOf: Self.repositoryDocument)))
        var documented = Set<String>()
        for (path, item) in json["paths"]?.objectValue ?? [] {
            for (method, _) in item.objectValue ?? [] where method != "parameters" { documented.insert("\(method) \(path)") }
        }
        #expect(registered.count >= 14)
        #expect(registered.subtracting(documented).sorted() == [], "routes missing from openapi.json")
        #expect(documented.subtracting(registered).sorted() == [], "documented routes the router lacks")
    }
}
