import JSON
import Host
import Hummingbird
import TriggerEngine

/// The present, answered from the engine's memory: devices (paged, with last position and the regions they are in),
/// the devices inside a region, and the devices near a point (Tile38's WITHIN and NEARBY, for geofences).
struct QueryRoutes: Sendable {
    let host: EngineHost

    static let defaultNearby = 100
    static let maximumNearby = 1000
    /// Half the Earth's circumference: any larger radius means the same thing.
    static let maximumRadius = 20_037_509.0

    /// - Parameters:
    ///   - read: the routes over every device (a device credential may not list or search other devices).
    ///   - ownDevice: one device's routes, which a device credential may call for its own devices.
    func register(read v1: RouterGroup<APIContext>, ownDevice: RouterGroup<APIContext>) {
        v1.get("devices") { request, _ in try await devices(request) }
        ownDevice.get("devices/:device") { _, context in
            try await device(try Self.own(try PathParameter.require("device", context), context))
        }
        ownDevice.get("devices/:device/regions") { _, context in
            try await regions(ofDevice: try Self.own(try PathParameter.require("device", context), context))
        }
        ownDevice.get("devices/:device/explain") { request, context in
            try await explain(try Self.own(try PathParameter.require("device", context), context), request)
        }
        ownDevice.get("devices/:device/proximity") { _, context in
            try await proximity(ofDevice: try Self.own(try PathParameter.require("device", context), context))
        }
        // Ids as apps make them: OwnTracks names a device `user/device`, and a client that does not percent-encode
        // sends `/v1/devices/jane/phone`. Any path under `devices/` with more segments is read as the device's id,
        // `/regions` or `/explain` at its end as that route (a device whose id itself ends in one needs `%2F`).
        ownDevice.get("devices/:device/**") { request, context in
            let parts = try [PathParameter.require("device", context)]
                + context.parameters.getCatchAll().map { part throws(Problem) in try PathParameter.decode(part, name: "device") }
            if parts.count >= 2, parts.last == "regions" {
                return try await regions(ofDevice: try Self.own(parts.dropLast().joined(separator: "/"), context))
            }
            if parts.count >= 2, parts.last == "explain" {
                return try await explain(try Self.own(parts.dropLast().joined(separator: "/"), context), request)
            }
            if parts.count >= 2, parts.last == "proximity" {
                return try await proximity(ofDevice: try Self.own(parts.dropLast().joined(separator: "/"), context))
            }
            return try await device(try Self.own(parts.joined(separator: "/"), context))
        }
        v1.get("regions/:region/devices") { _, context in
            let region = try PathParameter.require("region", context)
            guard let occupants = await host.occupants(ofRegion: region) else {
                throw Problem(.notFound, title: "Unknown region", detail: "no pending request has region id '\(region)'")
            }
            var w = JSONWriter()
            w.beginObject()
            w.field("regionId", region)
            w.key("devices"); w.beginArray()
            for o in occupants {
                w.beginObject()
                w.field("device", o.device)
                w.field("identifier", o.identifier)
                w.field("phase", o.phase)
                w.key("since"); w.timestamp(o.since)
                w.endObject()
            }
            w.endArray()
            w.endObject()
            return APIRoutes.json(w.bytes)
        }
        v1.get("nearby") { request, _ in try await nearby(request) }
    }

    private func device(_ name: String) async throws -> Response {
        guard let status = await host.status(ofDevice: name) else { throw Self.noDevice(name) }
        return APIRoutes.json(Self.deviceJSON(status))
    }

    /// `?request=ID`: that request only, pending or delivered (`repeats: false`).
    private func explain(_ name: String, _ request: Request) async throws -> Response {
        let asked = request.uri.queryParameters.get("request")
        if let asked {
            guard !asked.isEmpty else { throw Problem(.badRequest, title: "Invalid query", detail: "request= needs a request identifier") }
            guard await host.knowsRequest(asked) else {
                throw Problem(.notFound, title: "Unknown request", detail: "no pending or delivered request has identifier '\(asked)'")
            }
        }
        guard let explanation = await host.explain(device: name, request: asked) else { throw Self.noDevice(name) }
        var w = JSONWriter()
        explanation.write(into: &w)
        return APIRoutes.json(w.bytes)
    }

    private func regions(ofDevice name: String) async throws -> Response {
        guard let status = await host.status(ofDevice: name) else { throw Self.noDevice(name) }
        var w = JSONWriter()
        w.beginObject()
        w.field("device", status.device)
        w.key("regions")
        Self.write(status.memberships, into: &w)
        w.endObject()
        return APIRoutes.json(w.bytes)
    }

    /// `?limit=&cursor=`: `nextCursor` (opaque) is set while more devices follow.
    private func devices(_ request: Request) async throws -> Response {
        let q = request.uri.queryParameters
        let limit = try APIRoutes.integer(q.get("limit"), name: "limit") ?? APIRoutes.defaultPageSize
        guard (1...APIRoutes.maximumPageSize).contains(limit) else {
            throw Problem(.badRequest, title: "Bad paging", detail: "limit must be 1…\(APIRoutes.maximumPageSize)")
        }
        var start = 0
        if let cursor = q.get("cursor") {
            guard let value = Int(cursor), value >= 0 else {
                throw Problem(.badRequest, title: "Bad paging", detail: "cursor '\(cursor)' is not one this API gave out")
            }
            start = value
        }
        let page = await host.deviceStatuses(from: start, limit: limit)
        var w = JSONWriter()
        w.beginObject()
        w.key("devices"); w.beginArray()
        for s in page.statuses { Self.write(s, into: &w) }
        w.endArray()
        if let next = page.next { w.field("nextCursor", String(next)) }
        w.endObject()
        return APIRoutes.json(w.bytes)
    }

    /// Who is near the device now under its proximity requests: the pairs it is part of, as subject or target,
    /// inside (or entering, or remembered outside for `minimumInterval`), with the distance between the two
    /// devices' newest decided positions.
    private func proximity(ofDevice name: String) async throws -> Response {
        let pairs = await host.proximityPairs(ofDevice: name)
        if pairs.isEmpty {
            guard await host.status(ofDevice: name) != nil else { throw Self.noDevice(name) }
        }
        var w = JSONWriter()
        w.beginObject()
        w.field("device", name)
        w.key("pairs"); w.beginArray()
        for p in pairs {
            w.beginObject()
            w.field("identifier", p.request)
            w.field("regionId", p.regionID)
            w.field("subject", p.subject)
            w.field("target", p.target)
            w.field("other", p.subject == name ? p.target : p.subject)
            w.field("phase", p.phase)
            w.key("since"); w.timestamp(p.since)
            w.field("distance", (p.distance * 100).rounded() / 100)
            if let until = p.dwellUntil { w.key("dwellUntil"); w.timestamp(until) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return APIRoutes.json(w.bytes)
    }

    /// `?latitude=&longitude=&radius=` (metres) `[&limit=]`: devices by the distance of their newest fix, nearest first.
    private func nearby(_ request: Request) async throws -> Response {
        let q = request.uri.queryParameters
        func number(_ name: String, _ range: ClosedRange<Double>) throws(Problem) -> Double {
            guard let text = q.get(name) else {
                throw Problem(.badRequest, title: "Bad query", detail: "\(name) is required", extensions: [("parameter", name)])
            }
            guard let value = Double(String(text)), value.isFinite, range.contains(value) else {
                throw Problem(.badRequest, title: "Bad query",
                              detail: "\(name) must be a number in \(range.lowerBound)…\(range.upperBound), got '\(text)'",
                              extensions: [("parameter", name)])
            }
            return value
        }
        let latitude = try number("latitude", -90...90), longitude = try number("longitude", -180...180)
        let radius = try number("radius", 0...Self.maximumRadius)
        let limit = try APIRoutes.integer(q.get("limit"), name: "limit") ?? Self.defaultNearby
        guard (1...Self.maximumNearby).contains(limit) else {
            throw Problem(.badRequest, title: "Bad query", detail: "limit must be 1…\(Self.maximumNearby)", extensions: [("parameter", "limit")])
        }
        let found = await host.nearby(latitude: latitude, longitude: longitude, radius: radius, limit: limit)
        var w = JSONWriter()
        w.beginObject()
        w.key("devices"); w.beginArray()
        for n in found {
            w.beginObject()
            w.field("device", n.device)
            w.field("distance", (n.distance * 100).rounded() / 100)
            w.key("position"); Self.write(n.position, into: &w)
            w.key("lastFix"); w.timestamp(n.lastFix)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return APIRoutes.json(w.bytes)
    }

    /// `device`, once the caller may read it: a device credential only its own (else 403, whether or not the device
    /// has state, so the answer does not tell which devices exist).
    static func own(_ device: String, _ context: APIContext) throws(Problem) -> String {
        try context.credential?.requireOwn(CollectionOfOne(device))
        return device
    }

    static func noDevice(_ name: String) -> Problem {
        Problem(.notFound, title: "Unknown device", detail: "no state for device '\(name)'")
    }

    static func deviceJSON(_ s: DeviceStatus) -> [UInt8] {
        var w = JSONWriter()
        write(s, into: &w)
        return w.bytes
    }

    static func write(_ s: DeviceStatus, into w: inout JSONWriter) {
        w.beginObject()
        w.field("device", s.device)
        w.key("lastFix"); if let t = s.lastFix { w.timestamp(t) } else { w.null() }
        w.key("lastSighting"); if let t = s.lastSighting { w.timestamp(t) } else { w.null() }
        w.key("lastPosition"); if let p = s.lastPosition { write(p, into: &w) } else { w.null() }
        w.key("memberships")
        write(s.memberships, into: &w)
        w.endObject()
    }

    static func write(_ memberships: [DeviceStatus.Membership], into w: inout JSONWriter) {
        w.beginArray()
        for m in memberships {
            w.beginObject()
            w.field("identifier", m.identifier)
            w.field("regionId", m.regionID)
            w.field("phase", m.phase)
            w.key("since"); w.timestamp(m.since)
            w.endObject()
        }
        w.endArray()
    }

    static func write(_ p: DevicePosition, into w: inout JSONWriter) {
        w.beginObject()
        w.field("latitude", p.latitude)
        w.field("longitude", p.longitude)
        w.key("horizontalAccuracy"); if let a = p.horizontalAccuracy { w.number(a) } else { w.null() }
        w.endObject()
    }
}
