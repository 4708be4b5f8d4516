import Foundation
import Host
import JSON
import Logging
import Server
import Storage
import TestSupport
import Testing

/// `serve --regions FILE`: applied at start and on reload, idempotent by identifier, removing only what the file
/// added, and checked before anything is created on disk. Real servers over real journal and SQLite files.
@Suite struct RegionsFileTests {
    static func circle(_ identifier: String, radius: Int = 100, title: String = "{device} {event}") -> String {
        """
        {"identifier": "\(identifier)", "content": {"title": "\(title)"},
         "trigger": {"type": "location", "repeats": true,
                     "region": {"type": "circle", "id": "\(identifier)", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": \(radius)}}}
        """
    }

    struct Setup {
        let folder: URL
        var regions: String { folder.appendingPathComponent("regions.json").path }
        var database: String { folder.appendingPathComponent("state/geotrigger.sqlite").path }

        init() throws {
            folder = try TestFolders.make("regions-file")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        }

        func write(_ requests: [String]) throws {
            try ("[" + requests.joined(separator: ",\n") + "]").write(toFile: regions, atomically: true, encoding: .utf8)
        }

        func server(idProperty: String? = nil) throws -> GeoTriggerServer {
            var logger = Logger(label: "regions-file-tests")
            logger.logLevel = .critical
            var configuration = ServerConfiguration(databasePath: database, host: "127.0.0.1", port: 0)
            configuration.regionsFilePath = regions
            configuration.regionsGeoJSON.idProperty = idProperty
            return try GeoTriggerServer(configuration: configuration, logger: logger)
        }

        /// Pending requests as the service lists them: identifier → JSON.
        func pending(_ server: GeoTriggerServer) throws -> [String: String] {
            Dictionary(uniqueKeysWithValues: try server.host.store.requests().map { ($0.identifier, $0.json) })
        }
    }

    @Test func applyingTheSameFileAgainChangesNothing() async throws {
        let setup = try Setup()
        try setup.write([Self.circle("a"), Self.circle("b")])
        let server = try setup.server()
        let logger = Logger(label: "regions-file-tests")
        try await server.closingStorage {
            let first = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(first.added.sorted() == ["a", "b"] && first.unchanged == 0)
            let revisions = try server.host.store.requests().map(\.state)
            let second = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(second.description == "0 added, 0 replaced, 2 unchanged, 0 removed")
            // Untouched: the engine's numbers for each request (revision, firings) are as they were.
            #expect(try server.host.store.requests().map(\.state) == revisions)
        }
    }

    /// The exports in Tests/GeoTriggerCLITests/Fixtures, as a regions file: named by `--regions-id-property` or
    /// derived identifiers, stored with GeoJSON's defaults written out, and unchanged when applied again.
    @Test(arguments: [("qgis-export.geojson", "fid"), ("geojson-io-export.geojson", nil)] as [(String, String?)])
    func aGISExportIsAppliedAsRepeatingZonesAndAgainUnchanged(file: String, idProperty: String?) async throws {
        let setup = try Setup()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GeoTriggerCLITests/Fixtures/\(file)")
        try Data(contentsOf: fixture).write(to: URL(fileURLWithPath: setup.regions))
        let server = try setup.server(idProperty: idProperty)
        let logger = Logger(label: "regions-file-tests")
        try await server.closingStorage {
            let first = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(first.added.count == 3)
            if idProperty != nil { #expect(first.added.sorted() == ["1", "2", "3"]) }
            for (_, json) in try setup.pending(server) {
                #expect(json.contains(#""repeats":true"#) && json.contains(#""title":"{region.name}""#), "\(json)")
            }
            let second = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(second.description == "0 added, 0 replaced, 3 unchanged, 0 removed")
        }
    }

    @Test func changedRequestsAreReplacedAndDroppedOnesRemovedButNotTheAPIs() async throws {
        let setup = try Setup()
        try setup.write([Self.circle("a"), Self.circle("b")])
        let server = try setup.server()
        let logger = Logger(label: "regions-file-tests")
        try await server.closingStorage {
            try await server.regions!.apply(to: server.host, logger: logger)
            // A request created through the API: the file never added it, so it never removes it.
            _ = try await server.host.add(try JSONParser.parse(Self.circle("api")))
            try setup.write([Self.circle("b", radius: 250), Self.circle("c")])
            let summary = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(summary.added == ["c"] && summary.replaced == ["b"] && summary.unchanged == 0 && summary.removed == ["a"], "\(summary)")
            let pending = try setup.pending(server)
            #expect(pending.keys.sorted() == ["api", "b", "c"])
            #expect(pending["b"]?.contains("250") == true)
        }
    }

    /// What the file added is remembered beside the database: a request dropped from the file while the service
    /// was down is removed at the next start.
    @Test func aRequestDroppedWhileStoppedIsRemovedAtTheNextStart() async throws {
        let setup = try Setup()
        try setup.write([Self.circle("a"), Self.circle("b")])
        let logger = Logger(label: "regions-file-tests")
        let first = try setup.server()
        _ = try await first.closingStorage { try await first.regions!.apply(to: first.host, logger: logger) }
        try setup.write([Self.circle("b")])
        let second = try setup.server()
        try await second.closingStorage {
            #expect(try setup.pending(second).keys.sorted() == ["a", "b"])
            let summary = try await second.regions!.apply(to: second.host, logger: logger)
            #expect(summary.added.isEmpty && summary.replaced.isEmpty && summary.unchanged == 1 && summary.removed == ["a"], "\(summary)")
            #expect(try setup.pending(second).keys.sorted() == ["b"])
        }
    }

    /// A reload of a broken file changes nothing and says what to fix; the requests stay as they were.
    @Test func aBrokenFileOnReloadChangesNothing() async throws {
        let setup = try Setup()
        try setup.write([Self.circle("a")])
        let server = try setup.server()
        let logger = Logger(label: "regions-file-tests")
        try await server.closingStorage {
            try await server.regions!.apply(to: server.host, logger: logger)
            try setup.write([Self.circle("b", radius: -5)])
            let refused = await #expect(throws: ServerConfigurationError.self) { try await server.regions!.apply(to: server.host, logger: logger) }
            #expect(refused?.reason.contains("radius") == true && refused?.reason.contains("fix it and start (or reload) again") == true,
                    "\(String(describing: refused))")
            try setup.write([Self.circle("b"), Self.circle("b")])
            let twice = await #expect(throws: ServerConfigurationError.self) { try await server.regions!.apply(to: server.host, logger: logger) }
            #expect(twice?.reason.contains("'b' twice") == true, "\(String(describing: twice))")
            #expect(try setup.pending(server).keys.sorted() == ["a"])
        }
    }

    /// A file with proximity requests defines the groups they name; a reload changes a group's members, leaves a
    /// group defined through the API alone, and refuses a bad group with its path.
    @Test func aFileDefinesTheGroupsItsProximityRequestsName() async throws {
        let setup = try Setup()
        let near = #"{"identifier": "near", "trigger": {"repeats": true, "region": {"type": "proximity", "id": "crew", "radius": 50, "targets": {"group": "crew"}}}}"#
        func write(_ members: String) throws {
            try #"{"groups": {"crew": \#(members)}, "requests": [\#(near)]}"#.write(toFile: setup.regions, atomically: true, encoding: .utf8)
        }
        try write(#"["phone"]"#)
        let server = try setup.server()
        let logger = Logger(label: "regions-file-tests")
        try await server.closingStorage {
            let first = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(first.added == ["near"])
            #expect(await server.host.groups() == ["crew": ["phone"]])
            _ = try await server.host.setGroup("api-made", devices: ["x"])
            try write(#"["phone", "tablet"]"#)
            let second = try await server.regions!.apply(to: server.host, logger: logger)
            #expect(second.description == "0 added, 0 replaced, 1 unchanged, 0 removed")
            #expect(await server.host.groups() == ["api-made": ["x"], "crew": ["phone", "tablet"]])
            try write(#"[1]"#)
            let refused = await #expect(throws: ServerConfigurationError.self) { try await server.regions!.apply(to: server.host, logger: logger) }
            #expect(refused?.reason.contains("groups.crew[0]: expected a non-empty string") == true, "\(String(describing: refused))")
            #expect(await server.host.groups()["crew"] == ["phone", "tablet"])
        }
    }

    /// Start-up reads the file before the database and journal exist: a missing or broken file leaves no files.
    @Test func aBadFileStopsTheStartBeforeAnythingIsCreated() throws {
        let setup = try Setup()
        let missing = #expect(throws: ServerConfigurationError.self) { _ = try setup.server() }
        #expect(missing?.reason.contains("cannot read the regions file") == true, "\(String(describing: missing))")
        try setup.write([#"{"identifier": "x"}"#])
        let refused = #expect(throws: ServerConfigurationError.self) { _ = try setup.server() }
        #expect(refused?.reason.contains("the service would refuse") == true, "\(String(describing: refused))")
        let left = try FileManager.default.contentsOfDirectory(atPath: setup.folder.appendingPathComponent("state").path)
        #expect(left.isEmpty, "created before the checks: \(left)")
    }

    /// The database's folder is checked before anything is created, with what to do.
    @Test func aMissingStateFolderIsNamedBeforeAnythingIsCreated() throws {
        let setup = try Setup()
        try setup.write([])
        var logger = Logger(label: "regions-file-tests")
        logger.logLevel = .critical
        let missing = setup.folder.appendingPathComponent("no/such/geotrigger.sqlite").path
        var configuration = ServerConfiguration(databasePath: missing, host: "127.0.0.1", port: 0,
                                                sinks: [.ndjson(path: setup.folder.appendingPathComponent("out.ndjson").path)])
        configuration.regionsFilePath = setup.regions
        let error = #expect(throws: ServerConfigurationError.self) { _ = try GeoTriggerServer(configuration: configuration, logger: logger) }
        #expect(error?.reason.contains("does not exist; create it or choose another path") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: setup.folder.appendingPathComponent("out.ndjson").path))
    }
}
