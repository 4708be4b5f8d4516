import Hummingbird
import JSON
import Storage
import TriggerEngine

/// `POST /v1/tokens` (create; the answer carries the secret, the only time it is shown), `GET /v1/tokens` (list,
/// no secrets) and `DELETE /v1/tokens/{id}` (revoke, at once): the credentials in the database, admin only.
struct TokenRoutes: Sendable {
    let credentials: Credentials

    func register(on admin: RouterGroup<APIContext>) {
        admin.post("tokens") { request, _ in try await create(request) }
        admin.get("tokens") { _, _ in
            var w = JSONWriter()
            w.beginObject()
            w.key("tokens"); w.beginArray()
            for c in try credentials.list() { Self.write(c, into: &w) }
            w.endArray()
            w.endObject()
            return APIRoutes.json(w.bytes)
        }
        admin.delete("tokens/:id") { _, context in
            let id = try PathParameter.require("id", context)
            guard try credentials.revoke(id: id) else {
                throw Problem(.notFound, title: "Unknown token", detail: "no credential with id '\(id)'")
            }
            return Response(status: .noContent)
        }
    }

    /// `{"scope": "device", "devices": ["jane/phone"], "name": "Jane's phone"}`.
    private func create(_ request: Request) async throws -> Response {
        let json = try await APIRoutes.body(request, limit: 64 << 10)
        func bad(_ detail: String, _ field: String) -> Problem {
            Problem(.unprocessableContent, title: "Invalid token", detail: detail, extensions: [("path", field)])
        }
        guard json.objectValue != nil else { throw bad("expected an object with scope, and devices for a device credential", "") }
        guard let scopeText = json["scope"]?.stringValue else { throw bad("scope is required: one of \(Self.scopes)", "scope") }
        guard let scope = CredentialScope(rawValue: scopeText) else { throw bad("scope '\(scopeText)' is not one of \(Self.scopes)", "scope") }
        var devices: [String] = []
        if let value = json["devices"] {
            guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw bad("devices must be an array of device ids", "devices")
            }
            devices = array.compactMap(\.stringValue)
        }
        if let value = json["name"], value.stringValue == nil { throw bad("name must be a string", "name") }
        let created: Credentials.Created
        do {
            created = try credentials.create(name: json["name"]?.stringValue ?? "", scope: scope, devices: devices)
        } catch let e as Credentials.InvalidCredential {
            throw bad(e.description, "devices")
        }
        var w = JSONWriter()
        Self.write(created.credential, secret: created.secret, into: &w)
        return APIRoutes.json(w.bytes, status: .created)
    }

    static let scopes = CredentialScope.allCases.map(\.rawValue).joined(separator: ", ")

    static func write(_ c: StoredCredential, secret: String? = nil, into w: inout JSONWriter) {
        w.beginObject()
        w.field("id", c.id)
        w.field("name", c.name)
        w.field("scope", c.scope.rawValue)
        w.key("devices"); w.beginArray()
        for d in c.devices { w.string(d) }
        w.endArray()
        w.key("createdAt"); w.timestamp(c.createdAt)
        w.key("revokedAt"); if let t = c.revokedAt { w.timestamp(t) } else { w.null() }
        if let secret { w.field("secret", secret) }
        w.endObject()
    }
}
