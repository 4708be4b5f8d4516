import Inputs
import JSON
import Delivery
import Host
import Hummingbird
import Ingest
import Storage
import TriggerEngine

/// The `/v1` JSON API, health and metrics. Reads of stored requests go to the store directly (a WAL snapshot,
/// concurrent with writes); everything that changes state goes through the engine host.
struct APIRoutes: Sendable {
    let host: EngineHost
    let store: any StateStore
    let limit: Int
    let pressure: OutboxPressure
    let metricsText: (@Sendable () -> [UInt8])?

    static let defaultPageSize = 100
    static let maximumPageSize = 1000

    func register(on router: Router<APIContext>, credentials: Credentials) {
        let host = self.host
        // Each route is registered behind the scope it needs (`RouteAccess`), on groups of the same prefix.
        let read = router.group().add(middleware: ScopeMiddleware(access: .read))
        Self.registerProbes(open: router, guarded: read, metricsText: metricsText) {
            if let reason = await host.failureReason { return reason }
            return host.store.unhealthyReason
        }

        let v1Admin = router.group("v1").add(middleware: ScopeMiddleware(access: .admin))
        let v1Read = router.group("v1").add(middleware: ScopeMiddleware(access: .read))
        router.group("v1").add(middleware: ScopeMiddleware(access: .anyCredential)).get("openapi.json") { _, _ in Self.json(OpenAPIDocument.bytes) }
        v1Admin.put("requests/:identifier") { request, context in try await put(request, context) }
        v1Admin.post("requests") { request, _ in try await post(request) }
        v1Read.get("requests") { request, _ in try list(request) }
        GroupRoutes(host: host, limit: limit).register(admin: v1Admin, read: v1Read)
        v1Read.get("requests/delivered") { _, _ in try delivered() }
        v1Read.get("requests/:identifier") { _, context in try get(try PathParameter.require("identifier", context)) }
        v1Admin.delete("requests/:identifier") { _, context in
            let id = try PathParameter.require("identifier", context)
            guard try await Problem.mapping({ () async throws(HostError) in try await host.remove([id]) }) == [id] else { throw Self.noRequest(id) }
            return Response(status: .noContent)
        }
        v1Admin.delete("requests") { request, _ in
            let ids = request.uri.queryParameters.getAll("identifier").map { String($0) }
            let removed = try await Problem.mapping { () async throws(HostError) in ids.isEmpty ? try await host.removeAll() : try await host.remove(ids) }
            var w = JSONWriter()
            w.beginObject(); w.key("removed"); w.beginArray()
            for id in removed { w.string(id) }
            w.endArray(); w.endObject()
            return Self.json(w.bytes)
        }
        // Everything that can fire notifications, behind the outbox's back-pressure: decided by the route matched.
        // A device credential passes and its records are screened (`Credential.requireOwn`).
        let ingestRoutes = router.group("v1").add(middleware: ScopeMiddleware(access: .ingest))
            .add(middleware: BackPressureMiddleware(pressure: pressure))
        ingestRoutes.post("fixes") { request, context in
            let submit = { (fixes: [LocationFix], lines: [Int]) async throws(Problem) -> [(line: Int, reason: FixRejection)] in
                try await Problem.mapping { () async throws(HostError) in try await host.process(fixes: fixes, lines: lines) }
            }
            return try await Self.ingestFixes(request, limit: limit, credential: context.credential, submit: submit)
        }
        AppRoutes(host: host, limit: limit).register(on: router.group().add(middleware: ScopeMiddleware(access: .ingest))
            .add(middleware: BackPressureMiddleware(pressure: pressure)))
        ingestRoutes.post("sightings") { request, context in
            var reader = IngestReader(decoder: NDJSONSightingDecoder(source: "request"), limit: limit) { sightings, lines async throws(Problem) in
                try await Problem.mapping { () async throws(HostError) in try await host.process(sightings: sightings, lines: lines) }
            }
            reader.coalesce = true
            let type = Problem.contentType(of: request)
            reader.inspect = { bytes in
                try Problem.checkJSONBody(bytes, contentType: type, accepts: "application/x-ndjson or application/json")
            }
            if let credential = context.credential, credential.scope == .device {
                reader.screen = { sightings throws(Problem) in try credential.requireOwn(sightings.lazy.map(\.device)) }
            }
            return try await Self.ingest(request, &reader, limit: limit)
        }
        QueryRoutes(host: host).register(read: v1Read, ownDevice: router.group("v1").add(middleware: ScopeMiddleware(access: .ownDeviceRead)))
        TokenRoutes(credentials: credentials).register(on: v1Admin)
    }

    // MARK: Requests

    private func put(_ request: Request, _ context: APIContext) async throws -> Response {
        let id = try PathParameter.require("identifier", context)
        var json = try await Self.body(request, limit: limit)
        let options = try Self.geoJSONOptions(request)
        var defaultsApplied: [String] = []
        if json["type"]?.stringValue == "Feature" {
            do {
                let converted = try EngineHost.converted(Self.naming(feature: json, id, options), geoJSON: options)
                json = converted.json
                defaultsApplied = converted.defaultsApplied
            } catch { throw Problem(error) }
        }
        guard var object = json.objectValue else {
            throw Problem(.badRequest, title: "Malformed request", detail: "expected a request object, found \(json.kindName)")
        }
        // The path names the request: the body may omit the identifier, but must not contradict it.
        if let k = object.firstIndex(where: { $0.key == "identifier" }) {
            guard object[k].value.stringValue == id else {
                throw Problem(.unprocessableContent, title: "Identifier mismatch",
                              detail: "the body's identifier differs from '\(id)' in the path", extensions: [("path", "identifier")])
            }
        } else {
            object.insert((key: "identifier", value: .string(id)), at: 0)
            json = .object(object)
        }
        let results = try await Problem.mapping { () async throws(HostError) in try await host.add(json) }
        var w = JSONWriter()
        w.beginObject()
        w.field("identifier", id)
        w.field("outcome", results.first?.result == .replaced ? "replaced" : "added")
        Self.writeDefaults(defaultsApplied, &w)
        w.endObject()
        return Self.json(w.bytes, status: results.first?.result == .replaced ? .ok : .created)
    }

    /// A Feature PUT to a path needs no identifier of its own: the path's is its default (before `?idProperty=`'s
    /// property, which a feature may lack here).
    static func naming(feature: JSONValue, _ id: String, _ options: GeoJSONOptions = GeoJSONOptions()) -> JSONValue {
        guard var object = feature.objectValue, feature["id"] == nil else { return feature }
        var properties = feature["properties"]?.objectValue ?? []
        guard !properties.contains(where: { $0.key == "identifier" }) else { return feature }
        if let name = options.idProperty, properties.contains(where: { $0.key == name && !$0.value.isNull }) { return feature }
        properties.append((key: "identifier", value: .string(id)))
        if let k = object.firstIndex(where: { $0.key == "properties" }) { object[k].value = .object(properties) } else {
            object.append((key: "properties", value: .object(properties)))
        }
        return .object(object)
    }

    private func post(_ request: Request) async throws -> Response {
        let options = try Self.geoJSONOptions(request)
        let bytes = try await Self.bodyBytes(request, limit: limit)
        let results: [(identifier: String, result: EngineHost.AddResult)]
        let defaults: [String]
        if let decoded = bytes.withUnsafeBytes({ RequestDecoder().decodeRequestsWithTexts(bytes: $0) }) {
            // SPEC §1 JSON: the requests and their texts read from the bytes, with no tree; GeoJSON and every
            // refusal go through the tree and the conversion.
            results = try await Problem.mapping { () async throws(HostError) in
                try await host.add(decoded: decoded.requests, texts: decoded.texts, isArray: decoded.isArray)
            }
            defaults = []
        } else {
            let json = try Self.parsed(bytes, request)
            let converted: GeoJSONConversion
            do { converted = try EngineHost.converted(json, geoJSON: options) } catch { throw Problem(error) }
            results = try await Problem.mapping { () async throws(HostError) in try await host.add(converted: converted) }
            defaults = converted.defaultsApplied
        }
        var w = JSONWriter()
        w.beginObject()
        w.field("added", results.filter { $0.result == .added }.count)
        w.field("replaced", results.filter { $0.result == .replaced }.count)
        w.key("identifiers"); w.beginArray()
        for r in results { w.string(r.identifier) }
        w.endArray()
        Self.writeDefaults(defaults, &w)
        w.endObject()
        return Self.json(w.bytes)
    }

    /// `?idProperty=NAME`: a GeoJSON feature's identifier from that property (as `replay --id-property`).
    static func geoJSONOptions(_ request: Request) throws -> GeoJSONOptions {
        guard let name = request.uri.queryParameters.get("idProperty") else { return GeoJSONOptions() }
        guard !name.isEmpty else {
            throw Problem(.badRequest, title: "Malformed request", detail: "idProperty: expected a property name")
        }
        return GeoJSONOptions(idProperty: name)
    }

    /// `defaultsApplied`: the GeoJSON defaults the body's features took (docs/semantics.md); absent when none.
    static func writeDefaults(_ defaults: [String], _ w: inout JSONWriter) {
        guard !defaults.isEmpty else { return }
        w.key("defaultsApplied"); w.beginArray()
        for d in defaults { w.string(d) }
        w.endArray()
    }

    /// `?limit=&offset=` or `?limit=&cursor=` (the last identifier of the previous page); `nextCursor` is set
    /// while more may follow.
    private func list(_ request: Request) throws -> Response {
        let q = request.uri.queryParameters
        let pageSize = try Self.integer(q.get("limit"), name: "limit") ?? Self.defaultPageSize
        let offset = try Self.integer(q.get("offset"), name: "offset") ?? 0
        guard (1...Self.maximumPageSize).contains(pageSize), offset >= 0 else {
            throw Problem(.badRequest, title: "Bad paging", detail: "limit must be 1…\(Self.maximumPageSize) and offset ≥ 0")
        }
        let cursor = q.get("cursor").map { String($0) }
        let region = q.get("region").map { String($0) }, device = q.get("device").map { String($0) }
        let page = try store.requestsPage(after: cursor, offset: offset, limit: pageSize, region: region, device: device)
        var text = #"{"requests":["# + page.map(\.json).joined(separator: ",") + "]"
        if page.count == pageSize, let last = page.last {
            var w = JSONWriter()
            w.string(last.identifier)
            text += #","nextCursor":"# + String(decoding: w.bytes, as: UTF8.self)
        }
        return Self.json(text + "}")
    }

    private func get(_ id: String) throws -> Response {
        guard let r = try store.request(id) else { throw Self.noRequest(id) }
        return Self.json(r.json)
    }

    private func delivered() throws -> Response {
        let entries = try store.deliveredRequests()
        var parts: [String] = []
        for e in entries {
            var w = JSONWriter()
            w.beginObject()
            w.field("device", e.device)
            w.key("deliveredAt"); w.timestamp(e.deliveredAt)
            w.endObject()
            // The stored request JSON is our own compact output: spliced in as it is.
            let meta = String(decoding: w.bytes, as: UTF8.self)
            parts.append(#"{"request":"# + e.json + "," + meta.dropFirst())
        }
        return Self.json(#"{"delivered":["# + parts.joined(separator: ",") + "]}")
    }

    // MARK: Ingest

    /// `POST /v1/fixes` in any format `?format=` names (NDJSON by default), batches handed to `submit`.
    static func ingestFixes(_ request: Request, limit: Int, credential: Credential? = nil,
                            submit: @escaping (_ fixes: [LocationFix], _ lines: [Int]) async throws(Problem) -> [(line: Int, reason: FixRejection)]) async throws -> Response {
        let format = try FixBodyFormat(request)
        if format.format == .ndjson {
            var reader = IngestReader(decoder: NDJSONFixDecoder(source: "request", defaultDevice: format.device), limit: limit, submit: submit)
            reader.coalesce = true
            reader.screen = screen(for: credential)
            reader.inspect = { bytes in try format.inspect(bytes) }
            return try await ingest(request, &reader, limit: limit)
        }
        var reader = IngestReader(decoder: try format.decoder(), limit: limit, submit: submit)
        reader.coalesce = true
        reader.screen = screen(for: credential)
        reader.inspect = { bytes in try format.inspect(bytes) }
        return try await ingest(request, &reader, limit: limit)
    }

    /// For a device credential, the check that every fix is of one of its devices; nil for any other.
    static func screen(for credential: Credential?) -> (([LocationFix]) throws(Problem) -> Void)? {
        guard let credential, credential.scope == .device else { return nil }
        return { fixes throws(Problem) in try credential.requireOwn(fixes.lazy.map(\.device)) }
    }

    static func ingest<D: StreamingRecordDecoder>(_ request: Request, _ reader: inout IngestReader<D>, limit: Int) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw Problem.tooLarge(limit: limit) }
        let metrics = InputMetrics()
        let summary: IngestSummary
        do {
            summary = try await reader.read(request.body)
        } catch {
            // Records rejected before the failure (a body growing past the limit) were rejected all the same.
            for (kind, n) in reader.summary.kinds { metrics.rejected(kind, count: n) }
            throw error
        }
        for (kind, n) in summary.kinds { metrics.rejected(kind, count: n) }
        // A client that is answered 200 takes its records as delivered: a body of which no record could be read
        // is an error it must hear about; records the engine refused (a resend: duplicates, late) are answered 200
        // with each refusal listed (`IngestSummary.readNothing`).
        if summary.readNothing {
            return Response(status: .unprocessableContent, headers: [.contentType: "application/problem+json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: summary.problemJSON)))
        }
        return Self.json(summary.json)
    }

    // MARK: Helpers

    /// `/healthz` (the process answers), `/readyz` (503 with `unhealthy`'s reason while it has one) and `/metrics`:
    /// the same for one instance and for a cluster instance.
    /// - Parameters:
    ///   - open: where `/healthz` goes (a load balancer probes it without credentials).
    ///   - guarded: where `/readyz` and `/metrics` go.
    static func registerProbes<Context: RequestContext>(open: some RouterMethods<Context>, guarded: some RouterMethods<Context>,
                                                        metricsText: (@Sendable () -> [UInt8])?,
                                                        unhealthy: @escaping @Sendable () async -> String?) {
        open.get("/healthz") { _, _ in json(#"{"status":"ok"}"#) }
        guarded.get("/readyz") { _, _ in
            if let reason = await unhealthy() { throw Problem.unavailable(reason) }
            return json(#"{"status":"ready"}"#)
        }
        guarded.get("/metrics") { _, _ in
            guard let metricsText else { throw Problem(.notFound, title: "Not Found", detail: "metrics are not enabled") }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: ByteBuffer(bytes: metricsText())))
        }
    }

    /// The body as JSON, within the size limit.
    static func body(_ request: Request, limit: Int) async throws -> JSONValue {
        try parsed(try await bodyBytes(request, limit: limit), request)
    }

    /// The body's bytes, refused past `limit`.
    static func bodyBytes(_ request: Request, limit: Int) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw Problem.tooLarge(limit: limit) }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch let e as HTTPError where e.status == .contentTooLarge {
            throw Problem.tooLarge(limit: limit)
        }
        return Array(buffer.readableBytesView)
    }

    /// A body's bytes as JSON, with the problem a client is told when they are not.
    static func parsed(_ bytes: [UInt8], _ request: Request) throws -> JSONValue {
        do { return try JSONParser.parse(bytes) } catch {
            // A body that is not JSON under a label that is not JSON either: the label is what to fix.
            try bytes.withUnsafeBytes { b in
                try Problem.checkJSONBody(b, contentType: Problem.contentType(of: request), accepts: "application/json")
            }
            throw Problem.malformedJSON(error)
        }
    }

    /// An integer query parameter, absent or well formed.
    static func integer(_ text: String?, name: String) throws(Problem) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text) else {
            throw Problem(.badRequest, title: "Bad paging", detail: "\(name) must be an integer, got '\(text)'")
        }
        return value
    }

    static func noRequest(_ id: String) -> Problem {
        Problem(.notFound, title: "Unknown request", detail: "no pending request with identifier '\(id)'")
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        json(Array(text.utf8), status: status)
    }

    static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
