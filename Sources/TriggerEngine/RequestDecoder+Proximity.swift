import JSON

extension RequestDecoder {
    /// `{"type": "proximity", "id", "radius", "targets", "subjects"?, "maxAge"?}` (docs/semantics.md "Proximity").
    func decodeProximity(_ r: FieldReader, identifier: String) throws(RequestError) -> ProximityRegion {
        guard let radius = try r.number("radius") else { throw r.error("radius", "required") }
        guard radius > 0 else { throw r.error("radius", "must be > 0 metres") }
        guard radius <= 100_000 else { throw r.error("radius", "must be at most 100 km") }
        guard let targets = try r.object("targets", required: true) else { throw r.error("targets", "required") }
        let targetSelector = try decodeSelector(targets, path: "\(r.path).targets", identifier: identifier)
        var subjects: DeviceSelector?
        if let s = try r.object("subjects", required: false) {
            subjects = try decodeSelector(s, path: "\(r.path).subjects", identifier: identifier)
        }
        var maxAge = ProximityRegion.defaultMaxAge
        if let a = try r.number("maxAge") {
            guard a > 0 else { throw r.error("maxAge", "must be > 0 seconds") }
            maxAge = a
        }
        return ProximityRegion(radius: radius, targets: targetSelector, subjects: subjects, maxAge: maxAge)
    }

    /// `{"devices": [ids]}` or `{"group": NAME}`.
    func decodeSelector(_ object: [(key: String, value: JSONValue)], path: String, identifier: String) throws(RequestError) -> DeviceSelector {
        let r = FieldReader(object: object, path: path, identifier: identifier)
        try r.allowOnly(Self.selectorFields)
        let group = try r.string("group")
        let devices = r.value("devices")
        switch (group, devices) {
        case (let g?, nil):
            guard Self.isGroupName(g) else { throw r.error("group", Self.groupNameRule) }
            return .group(g)
        case (nil, let list?):
            guard let items = list.arrayValue else { throw r.error("devices", "expected an array of device ids, found \(list.kindName)") }
            var ids: [String] = []
            for (k, item) in items.enumerated() {
                guard let s = item.stringValue, !s.isEmpty else { throw r.error("devices[\(k)]", "expected a non-empty string") }
                ids.append(s)
            }
            guard !ids.isEmpty else { throw r.error("devices", "an empty list selects no device") }
            return .devices(Array(Set(ids)).sorted())
        case (_?, _?):
            throw r.error("group", "give either devices or group, not both")
        case (nil, nil):
            throw r.error("devices", "required: devices (a list of ids) or group (a group name)")
        }
    }

    public static let groupNameRule = "a group name is 1–64 characters of letters, digits, '-', '_' and '.'"

    public static func isGroupName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
        }
    }

    /// A request file: an array of requests (or one request), or `{"groups": {NAME: [ids]}, "requests": [...]}`.
    public func decodeRequestFile(_ json: JSONValue) throws(RequestError) -> (groups: [String: [String]], requests: [NotificationRequest]) {
        guard let object = json.objectValue, json["requests"] != nil || json["groups"] != nil else {
            return ([:], try decodeRequests(json))
        }
        let r = FieldReader(object: object, path: "", identifier: nil)
        try r.allowOnly(["groups", "requests"])
        let groups = try decodeGroups(r.value("groups") ?? .object([]), path: "groups")
        let requests = try r.value("requests").map { v throws(RequestError) in try decodeRequests(v) } ?? []
        return (groups, requests)
    }

    /// `{NAME: [device ids]}`.
    public func decodeGroups(_ json: JSONValue, path: String) throws(RequestError) -> [String: [String]] {
        guard let object = json.objectValue else { throw RequestError(path: path, reason: "expected an object of group name → device ids, found \(json.kindName)") }
        var out: [String: [String]] = [:]
        for (name, value) in object {
            guard Self.isGroupName(name) else { throw RequestError(path: "\(path).\(name)", reason: Self.groupNameRule) }
            out[name] = try Self.groupMembers(value, path: "\(path).\(name)")
        }
        return out
    }

    /// A group's members: an array of non-empty device ids (may be empty: a group with no members yet).
    public static func groupMembers(_ value: JSONValue, path: String) throws(RequestError) -> [String] {
        guard let items = value.arrayValue else { throw RequestError(path: path, reason: "expected an array of device ids, found \(value.kindName)") }
        var ids: [String] = []
        for (k, item) in items.enumerated() {
            guard let s = item.stringValue, !s.isEmpty else { throw RequestError(path: "\(path)[\(k)]", reason: "expected a non-empty string") }
            ids.append(s)
        }
        return Array(Set(ids)).sorted()
    }
}
