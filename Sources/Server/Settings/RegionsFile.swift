#if canImport(Glibc)
import SystemErrors
import Glibc
#endif
import Host
import JSON
import Logging
import Storage
import TriggerEngine

/// `serve --regions FILE`: notification requests kept in a file (a JSON array of SPEC §1 requests, or a GeoJSON
/// FeatureCollection, as `replay` reads), applied at start and again on SIGHUP (`systemctl reload`).
///
/// Applying is idempotent by identifier: a request whose JSON is the same as the one the service holds (pending, or
/// a one-shot request already delivered) is left alone, so its devices' state and its firing count stay; a changed
/// one is replaced; a new one is added. A request the file added before and no longer lists is removed. Requests
/// created through the API are never removed by the file, unless the file itself lists their identifier: the file
/// then owns it.
///
/// The identifiers the file added are kept in a small file beside the database (`DATABASE.regions-file`, JSON), so
/// a removal from the file is seen after a restart too. It is written before the changes with every identifier the
/// file ever added and not yet removed (the old set and the new), and after them with the new set alone, so a crash
/// at any point leaves it a superset of what the file owns: the next apply removes what it must.
public struct RegionsFile: Sendable {
    public let path: String
    /// The identifiers this file added (`DATABASE.regions-file`).
    public let ownedPath: String
    /// How GeoJSON features are named (`--regions-id-property`).
    public let geoJSON: GeoJSONOptions

    /// One request of the file: its identifier, and its JSON as the service stores it (SPEC §1 form).
    public struct Entry: Sendable {
        public var identifier: String
        public var json: JSONValue
        /// The GeoJSON defaults its feature took (`GeoJSONConversion.defaults`); empty for a SPEC §1 request.
        public var defaultsApplied: [String] = []
    }

    /// The whole file: its requests, and the device groups it defines (`{"groups": {…}, "requests": […]}`).
    public struct Contents: Sendable {
        public var entries: [Entry]
        public var groups: [String: [String]]
    }

    /// What an apply did.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        public var added: [String] = []
        public var replaced: [String] = []
        public var unchanged = 0
        public var removed: [String] = []
        public var description: String {
            "\(added.count) added, \(replaced.count) replaced, \(unchanged) unchanged, \(removed.count) removed"
        }
        public init(added: [String] = [], replaced: [String] = [], unchanged: Int = 0, removed: [String] = []) {
            self.added = added
            self.replaced = replaced
            self.unchanged = unchanged
            self.removed = removed
        }
    }

    public init(path: String, databasePath: String, geoJSON: GeoJSONOptions = GeoJSONOptions()) {
        self.path = path
        self.ownedPath = databasePath + ".regions-file"
        self.geoJSON = geoJSON
    }

    /// Reads and checks the whole file (JSON, every request decoded, identifiers unique) without touching the
    /// service: the start runs it before anything is created on disk, a reload before anything is changed.
    public func read() throws(ServerConfigurationError) -> Contents {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch {
            throw ServerConfigurationError(reason: "cannot read the regions file \(path): \(error); create it (an empty array [] is a valid file) or leave out --regions")
        }
        var json: JSONValue
        do { json = try JSONParser.parse(bytes) } catch {
            throw ServerConfigurationError(reason: "the regions file \(path) is not valid JSON: \(error); fix it and start (or reload) again")
        }
        if let array = json.arrayValue, array.isEmpty { return Contents(entries: [], groups: [:]) }
        // `{"groups": {…}, "requests": […]}`: the groups proximity requests name, beside the requests.
        var groups: [String: [String]] = [:]
        if json.objectValue != nil, json["type"] == nil, json["groups"] != nil || json["requests"] != nil {
            do throws(RequestError) {
                guard let object = json.objectValue else { throw RequestError(path: "", reason: "expected an object") }
                if let other = object.first(where: { $0.key != "groups" && $0.key != "requests" }) {
                    throw RequestError(path: other.key, reason: "unknown field (known: groups, requests)")
                }
                groups = try RequestDecoder().decodeGroups(json["groups"] ?? .object([]), path: "groups")
            } catch {
                throw ServerConfigurationError(reason: "the regions file \(path) has groups the service would refuse: \(error); fix it and start (or reload) again")
            }
            json = json["requests"] ?? .array([])
            if let array = json.arrayValue, array.isEmpty { return Contents(entries: [], groups: groups) }
        }
        let spec: JSONValue
        let requests: [NotificationRequest]
        let defaults: [[String]]
        do {
            let decoder = RequestDecoder()
            let converted = try decoder.convertGeoJSON(json, options: geoJSON)
            spec = converted.json
            requests = try decoder.requests(of: converted)
            defaults = converted.defaults
        } catch {
            throw ServerConfigurationError(reason: "the regions file \(path) holds a request the service would refuse: \(error); fix it and start (or reload) again")
        }
        let items = spec.arrayValue ?? [spec]
        var seen = Set<String>()
        var entries: [Entry] = []
        for (k, (request, item)) in zip(requests, items).enumerated() {
            guard seen.insert(request.identifier).inserted else {
                throw ServerConfigurationError(reason: "the regions file \(path) lists the identifier '\(request.identifier)' twice; keep one and start (or reload) again")
            }
            entries.append(Entry(identifier: request.identifier, json: item, defaultsApplied: k < defaults.count ? defaults[k] : []))
        }
        return Contents(entries: entries, groups: groups)
    }

    /// Reads the file and brings the host's requests in line with it (see the type's description).
    @discardableResult
    public func apply(to host: EngineHost, logger: Logger) async throws -> Summary {
        try await apply(read(), to: host, logger: logger)
    }

    /// Brings the host's groups and requests in line with `contents`, read before by `read()`. Groups first (a
    /// request may name one): each group the file defines is set when its members differ from the service's; groups
    /// defined through the API and not in the file are left alone.
    @discardableResult
    public func apply(_ contents: Contents, to host: EngineHost, logger: Logger) async throws -> Summary {
        let held = await host.groups()
        for (name, members) in contents.groups.sorted(by: { $0.key < $1.key }) where held[name] != members {
            _ = try await host.setGroup(name, devices: members)
        }
        return try await apply(contents.entries, to: host, logger: logger)
    }

    /// Brings the host's requests in line with `entries`.
    @discardableResult
    public func apply(_ entries: [Entry], to host: EngineHost, logger: Logger) async throws -> Summary {
        let (pending, delivered) = try host.store.listing()
        var held: [String: String] = [:]
        for d in delivered { held[d.identifier] = d.json }
        for r in pending { held[r.identifier] = r.json }
        let previouslyOwned = try readOwned()
        let listed = Set(entries.map(\.identifier))
        try writeOwned(previouslyOwned.union(listed))

        var summary = Summary()
        let changed = entries.filter { held[$0.identifier] != $0.json.jsonText }
        summary.unchanged = entries.count - changed.count
        if !changed.isEmpty {
            for (identifier, result) in try await host.add(.array(changed.map(\.json))) {
                if result == .added { summary.added.append(identifier) } else { summary.replaced.append(identifier) }
            }
        }
        let gone = previouslyOwned.subtracting(listed).sorted()
        if !gone.isEmpty { summary.removed = try await host.remove(gone) }
        try writeOwned(listed)
        var metadata: Logger.Metadata = [
            "file": "\(path)", "added": "\(summary.added.count)", "replaced": "\(summary.replaced.count)",
            "unchanged": "\(summary.unchanged)", "removed": "\(summary.removed.count)"]
        // GeoJSON users did not write these fields: say which ones the service chose (docs/semantics.md).
        let defaulted = entries.filter { !$0.defaultsApplied.isEmpty }
        if !defaulted.isEmpty {
            let used = Set(defaulted.flatMap(\.defaultsApplied))
            metadata["geoJSONDefaults"] = "\(GeoJSONConversion.defaultNames.filter(used.contains).joined(separator: ","))"
            metadata["defaultedFeatures"] = "\(defaulted.count)"
        }
        logger.notice("regions file applied", metadata: metadata)
        return summary
    }

    /// The identifiers the file added, as last written; none when the file is missing (a first start).
    func readOwned() throws -> Set<String> {
        let bytes: [UInt8]
        do { bytes = try readFile(ownedPath) } catch { return [] }
        guard let list = try JSONParser.parse(bytes).arrayValue else {
            throw ServerConfigurationError(reason: "\(ownedPath) is not the JSON array of identifiers the regions file added; delete it (the next reload re-adds the file's requests and removes none)")
        }
        return Set(list.compactMap(\.stringValue))
    }

    /// Replaces `ownedPath` whole (a new file renamed over it, both synced), so a crash leaves the old set or the new.
    func writeOwned(_ identifiers: Set<String>) throws {
        let text = JSONValue.array(identifiers.sorted().map { .string($0) }).jsonText + "\n"
        let temporary = ownedPath + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerConfigurationError(reason: "cannot write \(temporary): \(SystemError.text())") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, ownedPath) == 0 else {
            throw ServerConfigurationError(reason: "cannot write \(ownedPath): \(SystemError.text())")
        }
        let folder = ownedPath.lastIndex(of: "/").map { String(ownedPath[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }
}
