import Inputs
import Cluster
import Host
import Hummingbird
import Ingest
import JSON
import EngineLog
import Journal
import NIOCore
import TriggerEngine

/// The API of an instance of a scale-out deployment (`serve --journal nats://…` or `kafka://…`): inputs and
/// request changes go to the JetStream streams or Kafka topics and are answered once stored there; evaluation
/// happens where each device's partition is owned, and notifications go to the notification stream or topic. Routes that read engine state (device status,
/// occupants, the request listing) belong to the partition owners and are not served here (docs/cluster.md).
struct ClusterRoutes: Sendable {
    let node: ClusterNode
    let limit: Int
    let metricsText: (@Sendable () -> [UInt8])?

    var gateway: ClusterGateway { node.gateway }

    func register(on router: Router<BasicRequestContext>) {
        let node = self.node
        APIRoutes.registerProbes(open: router, guarded: router, metricsText: metricsText) { node.failureReason }
        let v1 = router.group("v1")
        v1.get("openapi.json") { _, _ in APIRoutes.json(OpenAPIDocument.bytes) }
        v1.get("cluster") { _, _ in status() }
        v1.post("requests") { request, _ in
            let options = try APIRoutes.geoJSONOptions(request)
            return try await post(try await APIRoutes.body(request, limit: limit), options: options)
        }
        v1.put("requests/:identifier") { request, context in
            let id = try PathParameter.require("identifier", context)
            let options = try APIRoutes.geoJSONOptions(request)
            var json = try await APIRoutes.body(request, limit: limit)
            if json["type"]?.stringValue == "Feature" { json = APIRoutes.naming(feature: json, id, options) }
            guard var object = json.objectValue else {
                throw Problem(.badRequest, title: "Malformed request", detail: "expected a request object, found \(json.kindName)")
            }
            if !object.contains(where: { $0.key == "identifier" }) && json["type"]?.stringValue != "Feature" {
                object.insert((key: "identifier", value: .string(id)), at: 0)
                json = .object(object)
            }
            let (added, defaults) = try await add(json, options: options)
            guard added.allSatisfy({ $0.identifier == id }) else {
                throw Problem(.unprocessableContent, title: "Identifier mismatch", detail: "the body's identifier differs from '\(id)' in the path",
                              extensions: [("path", "identifier")])
            }
            var w = JSONWriter()
            w.beginObject(); w.field("identifier", id); w.field("outcome", added.first?.replaced == true ? "replaced" : "added")
            APIRoutes.writeDefaults(defaults, &w)
            w.endObject()
            return APIRoutes.json(w.bytes, status: added.first?.replaced == true ? .ok : .created)
        }
        v1.delete("requests/:identifier") { _, context in
            let id = try PathParameter.require("identifier", context)
            guard gateway.requests.isPending(id) else { throw APIRoutes.noRequest(id) }
            try await change(.remove(identifiers: [id]))
            return Response(status: .noContent)
        }
        v1.delete("requests") { request, _ in
            let ids = request.uri.queryParameters.getAll("identifier").map { String($0) }
            let removed = ids.filter { gateway.requests.isPending($0) }
            try await change(ids.isEmpty ? .removeAll : .remove(identifiers: removed))
            var w = JSONWriter()
            w.beginObject(); w.key("removed"); w.beginArray()
            for id in removed { w.string(id) }
            w.endArray(); w.endObject()
            return APIRoutes.json(w.bytes)
        }
        v1.post("fixes") { request, _ in
            let submit = { (fixes: [LocationFix], _: [Int]) async throws(Problem) -> [(line: Int, reason: FixRejection)] in
                try await Problem.mapping { () async throws(ClusterError) in try await gateway.publish(fixes: fixes) }
                return []
            }
            return try await APIRoutes.ingestFixes(request, limit: limit, submit: submit)
        }
        v1.post("sightings") { request, _ in
            var reader = IngestReader(decoder: NDJSONSightingDecoder(source: "request"), limit: limit) { sightings, _ async throws(Problem) in
                try await Problem.mapping { () async throws(ClusterError) in try await gateway.publish(sightings: sightings) }
                return []
            }
            reader.coalesce = true
            return try await APIRoutes.ingest(request, &reader, limit: limit)
        }
    }

    /// Decodes and checks every request (all or none), then writes them as one change; with the GeoJSON defaults
    /// the body's features took.
    private func add(_ body: JSONValue, options: GeoJSONOptions) async throws
        -> (added: [(identifier: String, replaced: Bool)], defaultsApplied: [String]) {
        let converted: GeoJSONConversion
        do { converted = try EngineHost.converted(body, geoJSON: options) } catch { throw Problem(error) }
        let json = converted.json
        let requests: [NotificationRequest]
        do {
            requests = try RequestDecoder().requests(of: converted)
            for r in requests { try RequestDecoder.checkNotificationSize(r) }
        } catch { throw Problem.invalidRequest(error) }
        if let r = requests.first(where: { if case .proximity = $0.trigger.region.shape { true } else { false } }) {
            throw Problem(.unprocessableContent, title: "Not in a partitioned deployment",
                          detail: "request '\(r.identifier)': a proximity request pairs devices that may live in different partitions, "
                              + "so a partitioned deployment refuses it (docs/cluster.md, \"Proximity\"); run it on a single serve",
                          extensions: [("path", "trigger.region.type")])
        }
        let result = requests.map { ($0.identifier, gateway.requests.isPending($0.identifier)) }
        try await change(.requests(json: json.jsonText))
        return (result, converted.defaultsApplied)
    }

    private func post(_ body: JSONValue, options: GeoJSONOptions) async throws -> Response {
        let (results, defaults) = try await add(body, options: options)
        var w = JSONWriter()
        w.beginObject()
        w.field("added", results.filter { !$0.replaced }.count)
        w.field("replaced", results.filter { $0.replaced }.count)
        w.key("identifiers"); w.beginArray()
        for r in results { w.string(r.identifier) }
        w.endArray()
        APIRoutes.writeDefaults(defaults, &w)
        w.endObject()
        return APIRoutes.json(w.bytes)
    }

    private func change(_ input: HostInput) async throws(Problem) {
        _ = try await Problem.mapping { () async throws(ClusterError) in try await gateway.publish(change: input) }
    }

    private func status() -> Response {
        var w = JSONWriter()
        w.beginObject()
        w.field("instance", node.configuration.instance)
        w.field("partitions", node.configuration.partitions)
        w.key("owned"); w.beginArray()
        for p in node.ownedPartitions { w.number(p) }
        w.endArray()
        w.key("stopping"); w.beginArray()
        for p in node.stoppingPartitions { w.number(p) }
        w.endArray()
        w.field("requestsSequence", Int(gateway.requests.lastSequence))
        w.endObject()
        return APIRoutes.json(w.bytes)
    }
}
