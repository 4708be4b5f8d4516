import Inputs
import Foundation
import Host
import Hummingbird
import Ingest
import JSON
import Metrics
import TriggerEngine

/// Where the apps fleets already run post, as they post (docs/integrations.md): the OwnTracks app in HTTP mode
/// (`POST /v1/owntracks`) and Traccar Client or any OsmAnd-protocol sender (`GET`/`POST` at `/` and `/v1/osmand`).
/// Behind the same back-pressure and credentials as `/v1/fixes` (Basic credentials with the credential as password
/// are accepted, since these apps send Basic; a device credential may post only as its own devices); every fix goes
/// through the host and is answered once durable.
struct AppRoutes: Sendable {
    let host: EngineHost
    let limit: Int

    func register(on group: RouterGroup<APIContext>) {
        group.post("v1/owntracks") { request, context in try await ownTracks(request, credential: context.credential) }
        for path in ["/", "v1/osmand"] {
            group.get(RouterPath(path)) { request, context in try await osmAnd(request, body: nil, credential: context.credential) }
            group.post(RouterPath(path)) { request, context in
                try await osmAnd(request, body: try await collect(request), credential: context.credential)
            }
        }
    }

    // MARK: OwnTracks

    /// The device is `X-Limit-U/X-Limit-D` (as the OwnTracks Recorder names it) when the app sends them, else the
    /// message's `topic` or `tid`. Answers `[]` (the app reads an array of messages back) once the fixes are durable,
    /// also when the engine refused them (a resend the app made after a lost answer: duplicates; an offline
    /// buffer flushed late): counted as rejections by reason. A body of location messages none of which could be
    /// read is a 422 with the reasons, and so is a body with no message at all. A device credential's body is
    /// refused whole (403) when any fix is of a device not its own, so the device names checked are those the
    /// fixes carry, however they were named.
    private func ownTracks(_ request: Request, credential: Credential?) async throws -> Response {
        func header(_ name: String) -> String? {
            request.headers.first { $0.name.canonicalName == name }.flatMap { $0.value.isEmpty ? nil : $0.value }
        }
        let user = header("x-limit-u"), deviceName = header("x-limit-d")
        let device: String? = switch (user, deviceName) {
        case let (u?, d?): "\(u)/\(d)"
        case let (u?, nil): u
        case let (nil, d?): d
        case (nil, nil): nil
        }
        var reader = IngestReader(decoder: OwnTracksBodyDecoder(device: device), limit: limit) { fixes, lines async throws(Problem) in
            try await Problem.mapping { () async throws(HostError) in try await host.process(fixes: fixes, lines: lines) }
        }
        reader.coalesce = true
        reader.screen = APIRoutes.screen(for: credential)
        let type = Problem.contentType(of: request)
        reader.inspect = { bytes in
            try Problem.checkJSONBody(bytes, contentType: type, accepts: "application/json (OwnTracks' HTTP mode)")
        }
        let summary = try await Self.read(request, &reader)
        let ignored = reader.decoder.ignored
        for (type, n) in ignored {
            Counter(label: "geotrigger_owntracks_ignored_total", dimensions: [("type", type)]).increment(by: n)
        }
        if summary.readNothing, summary.rejected > 0 || ignored.isEmpty { return Self.nothingAccepted(summary) }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "[]")))
    }

    // MARK: OsmAnd (Traccar Client)

    /// One position as query parameters, a form body, or Traccar Client's JSON (or Traccar's event forwarding JSON,
    /// `{"position": …, "device": …}`). Answers 200 with an empty body once durable, as Traccar does, also for a
    /// position the engine refused (a resend, an older timestamp: Traccar Client resends until it gets a 200); 400
    /// with the reason when no position could be read.
    private func osmAnd(_ request: Request, body: [UInt8]?, credential: Credential?) async throws -> Response {
        var results: [Result<LocationFix, IngestError>] = []
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        if let body, let first = body.first(where: { !IngestReader<NDJSONFixDecoder>.isBlank($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            let json: JSONValue
            do { json = try JSONParser.parse(body) } catch { throw Problem.malformedJSON(error) }
            if let fixes = OsmAndDecoder.fixes(json: json, source: "request") {
                results = fixes
            } else {
                // Traccar's forwarded positions, read by the same decoder as `replay`.
                var decoder = TraccarDecoder(source: "request")
                var errors: [IngestError] = []
                body.withUnsafeBytes { decoder.decode($0, onRecord: { results.append(.success($0)) }, onError: { errors.append($0) }) }
                decoder.finish(onRecord: { results.append(.success($0)) }, onError: { errors.append($0) })
                results += errors.map { .failure($0) }
            }
        } else {
            var parameters = Self.parameters(request.uri.query ?? "")
            if let body, !body.isEmpty, contentType.hasPrefix("application/x-www-form-urlencoded") || contentType.isEmpty || contentType.hasPrefix("text/plain") {
                parameters += Self.parameters(String(decoding: body, as: UTF8.self))
            }
            guard !parameters.isEmpty else {
                throw Problem(.badRequest, title: "No position", detail: "send id, lat, lon and timestamp as query or form parameters, or Traccar Client's JSON")
            }
            results = [OsmAndDecoder.fix(parameters: parameters, source: "request")]
        }
        var summary = IngestSummary()
        var fixes: [(line: Int, fix: LocationFix)] = []
        for (k, r) in results.enumerated() {
            switch r {
            case .success(let fix): fixes.append((k + 1, fix))
            case .failure(let e): summary.reject(line: k + 1, field: e.field, reason: e.reason, kind: e.kind)
            }
        }
        try credential?.requireOwn(fixes.lazy.map(\.fix.device))
        if !fixes.isEmpty {
            let rejected = try await Problem.mapping { () async throws(HostError) in try await host.process(fixes: fixes) }
            summary.accepted += fixes.count - rejected.count
            summary.evaluated += fixes.count
            for r in rejected { summary.reject(line: r.line, field: nil, reason: r.reason.description, kind: r.reason.rawValue) }
        }
        let metrics = InputMetrics()
        for (kind, n) in summary.kinds { metrics.rejected(kind, count: n) }
        guard !summary.readNothing else {
            let first = summary.errors.first
            throw Problem(.badRequest, title: "Position not accepted",
                          detail: first.map { ($0.field.map { "\($0): " } ?? "") + $0.reason } ?? "no position in the request",
                          extensions: first?.field.map { [("field", $0)] } ?? [])
        }
        return Response(status: .ok)
    }

    /// `a=1&b=x+y` → [("a", "1"), ("b", "x y")]: form encoding (RFC 1866: `+` is a space), percent-escapes decoded.
    static func parameters(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            guard let name = parts.first, !name.isEmpty else { return nil }
            return (decode(name), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private func collect(_ request: Request) async throws -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw Problem.tooLarge(limit: limit) }
        do { return Array(try await request.body.collect(upTo: limit).readableBytesView) } catch let e as HTTPError where e.status == .contentTooLarge {
            throw Problem.tooLarge(limit: limit)
        }
    }

    /// Reads a body through `reader`, counting rejections like `/v1/fixes`.
    static func read<D: StreamingRecordDecoder>(_ request: Request, _ reader: inout IngestReader<D>) async throws -> IngestSummary {
        let metrics = InputMetrics()
        do {
            let summary = try await reader.read(request.body)
            for (kind, n) in summary.kinds { metrics.rejected(kind, count: n) }
            return summary
        } catch {
            for (kind, n) in reader.summary.kinds { metrics.rejected(kind, count: n) }
            throw error
        }
    }

    static func nothingAccepted(_ summary: IngestSummary) -> Response {
        Response(status: .unprocessableContent, headers: [.contentType: "application/problem+json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: summary.problemJSON)))
    }
}
