import JSON
import Host
import Hummingbird
import TriggerEngine

/// Device groups, which proximity requests name as their targets or subjects (docs/semantics.md "Proximity"):
/// defined, redefined and removed through the journal like any change, so a restart and a checkpoint keep them.
struct GroupRoutes: Sendable {
    let host: EngineHost
    let limit: Int

    func register(admin: RouterGroup<APIContext>, read: RouterGroup<APIContext>) {
        read.get("groups") { _, _ in
            let groups = await host.groups()
            var w = JSONWriter()
            w.beginObject()
            w.key("groups"); w.beginObject()
            for (name, members) in groups.sorted(by: { $0.key < $1.key }) {
                w.key(name); w.beginArray(); for m in members { w.string(m) }; w.endArray()
            }
            w.endObject()
            w.endObject()
            return APIRoutes.json(w.bytes)
        }
        read.get("groups/:name") { _, context in
            let name = try PathParameter.require("name", context)
            guard let members = await host.groups()[name] else { throw Self.noGroup(name) }
            return APIRoutes.json(Self.groupJSON(name, members))
        }
        admin.put("groups/:name") { request, context in
            let name = try PathParameter.require("name", context)
            guard RequestDecoder.isGroupName(name) else {
                throw Problem(.unprocessableContent, title: "Invalid group name", detail: RequestDecoder.groupNameRule, extensions: [("path", "name")])
            }
            let body = try await APIRoutes.body(request, limit: limit)
            let members = try Self.members(body)
            let existed = try await Problem.mapping { () async throws(HostError) in try await host.setGroup(name, devices: members) }
            return APIRoutes.json(Self.groupJSON(name, members), status: existed ? .ok : .created)
        }
        admin.delete("groups/:name") { _, context in
            let name = try PathParameter.require("name", context)
            let existed = try await Problem.mapping { () async throws(HostError) in try await host.setGroup(name, devices: nil) }
            guard existed else { throw Self.noGroup(name) }
            return Response(status: .noContent)
        }
    }

    /// `{"devices": [ids]}`: anything else can never be accepted (422 with the field).
    static func members(_ body: JSONValue) throws(Problem) -> [String] {
        guard let object = body.objectValue else {
            throw Problem(.badRequest, title: "Malformed request", detail: "expected {\"devices\": [device ids]}, found \(body.kindName)")
        }
        if let other = object.first(where: { $0.key != "devices" }) {
            throw Problem(.unprocessableContent, title: "Invalid group", detail: "unknown field '\(other.key)' (known: devices)", extensions: [("path", other.key)])
        }
        guard let list = body["devices"] else {
            throw Problem(.unprocessableContent, title: "Invalid group", detail: "devices is required: an array of device ids", extensions: [("path", "devices")])
        }
        do throws(RequestError) { return try RequestDecoder.groupMembers(list, path: "devices") } catch {
            throw Problem(.unprocessableContent, title: "Invalid group", detail: error.reason, extensions: [("path", error.path)])
        }
    }

    static func groupJSON(_ name: String, _ members: [String]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("name", name)
        w.key("devices"); w.beginArray(); for m in members { w.string(m) }; w.endArray()
        w.endObject()
        return w.bytes
    }

    static func noGroup(_ name: String) -> Problem {
        Problem(.notFound, title: "Unknown group", detail: "no group named '\(name)'")
    }
}
