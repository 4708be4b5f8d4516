import JSON
import TriggerEngine

/// The rules of OwnTracks' JSON Schema (owntracks/json-schema `schemas/message.json`, `encryption.json`), written out
/// so that what the schema rejects is an error here with the reason, and what it accepts passes.
extension OwnTracksDecoder {
    enum Message {
        case location([(key: String, value: JSONValue)])
        case ignored(String)
    }

    static let knownTypes: Set<String> = [
        "beacon", "card", "cmd", "configuration", "location", "lwt", "request", "status", "steps", "transition",
        "waypoint", "waypoints",
    ]
    static let actions: Set<String> = [
        "action", "clearWaypoints", "dump", "reportLocation", "reportSteps", "response", "setConfiguration",
        "setWaypoints", "status", "waypoints",
    ]
    static let requests: Set<String> = ["tour", "tours", "untour"]

    static func classify(_ message: JSONValue) throws(FieldProblem) -> Message {
        guard case .object(let members) = message else {
            throw FieldProblem(field: nil, reason: "an OwnTracks message must be a JSON object, found \(message.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        var fields: [String: JSONValue] = [:]
        for (k, v) in members where fields[k] == nil { fields[k] = v }
        guard let typeValue = fields["_type"] else {
            throw FieldProblem(field: "_type", reason: "_type is missing", kind: IngestError.Kind.missingType)
        }
        guard let type = typeValue.stringValue else {
            throw FieldProblem(field: "_type", reason: "_type must be a string, found \(typeValue.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        if type == "encrypted" {
            try requireBase64(fields, "data", required: true)
            return .ignored(type)
        }
        guard knownTypes.contains(type) else {
            throw invalid("_type", "\"\(type)\" is not an OwnTracks message type")
        }
        // Properties the schema types for every message.
        try requireType(fields, "lat", .number)
        try requireType(fields, "lon", .number)
        try requireType(fields, "tst", .integer)
        try requireType(fields, "ntours", .integer)
        if let n = fields["ntours"]?.doubleValue, n < 0 { throw invalid("ntours", "ntours must not be negative") }
        try requireType(fields, "tours", .array)
        try requireEnum(fields, "action", actions)
        try requireEnum(fields, "request", requests)
        if let uuid = fields["uuid"] {
            guard let s = uuid.stringValue, isUUID(s) else { throw invalid("uuid", "uuid is not a UUID") }
        }
        switch type {
        case "location":
            try requireFields(fields, ["lat", "lon", "tst"])
            return .location(members)
        case "lwt":
            try requireFields(fields, ["tst"])
        case "steps":
            try requireFields(fields, ["from", "steps", "to", "tst"])
            for k in ["distance", "floorsdown", "floorsup", "from", "steps", "to"] { try requireType(fields, k, .integer) }
        case "transition":
            try requireFields(fields, ["acc", "event", "lat", "lon", "tst", "wtst"])
        case "card":
            try requireBase64(fields, "face", required: false)
            try requireType(fields, "name", .string)
        case "cmd":
            try requireFields(fields, ["action"])
        default:
            break
        }
        if fields["action"]?.stringValue == "response", fields["response"] != nil {
            try requireFields(fields, ["request"])
        }
        if fields["request"]?.stringValue == "untour" { try requireFields(fields, ["uuid"]) }
        return .ignored(type)
    }

    enum Kind { case number, integer, string, array }

    static func requireType(_ fields: [String: JSONValue], _ key: String, _ kind: Kind) throws(FieldProblem) {
        guard let v = fields[key] else { return }
        let ok: Bool
        let expected: String
        switch kind {
        case .number:
            ok = v.doubleValue != nil
            expected = "a number"
        case .integer:
            // JSON Schema: any number with a zero fractional part is an integer.
            ok = v.doubleValue.map { $0.isFinite && $0 == $0.rounded() } ?? false
            expected = "an integer"
        case .string:
            ok = v.stringValue != nil
            expected = "a string"
        case .array:
            ok = v.arrayValue != nil
            expected = "an array"
        }
        if !ok {
            throw FieldProblem(field: key, reason: "\(key) must be \(expected), found \(v.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
    }

    static func requireFields(_ fields: [String: JSONValue], _ keys: [String]) throws(FieldProblem) {
        for k in keys where fields[k] == nil { throw FieldProblem.missing(k) }
    }

    static func requireEnum(_ fields: [String: JSONValue], _ key: String, _ allowed: Set<String>) throws(FieldProblem) {
        guard let v = fields[key] else { return }
        guard let s = v.stringValue else {
            throw FieldProblem(field: key, reason: "\(key) must be a string, found \(v.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        if !allowed.contains(s) { throw invalid(key, "\"\(s)\" is not a valid \(key)") }
    }

    /// The schema's `^[-A-Za-z0-9+/]*={0,3}$`.
    static func requireBase64(_ fields: [String: JSONValue], _ key: String, required: Bool) throws(FieldProblem) {
        guard let v = fields[key] else {
            if required { throw FieldProblem.missing(key) }
            return
        }
        guard let s = v.stringValue else {
            throw FieldProblem(field: key, reason: "\(key) must be a string, found \(v.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        var padding = 0
        for c in s.utf8 {
            let isBase64 = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 43 || c == 47
                || c == 45
            if c == 61 {
                padding += 1
                if padding > 3 { throw invalid(key, "\(key) is not base64") }
            } else if !isBase64 || padding > 0 {
                throw invalid(key, "\(key) is not base64")
            }
        }
    }

    static func isUUID(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard u.count == 36 else { return false }
        for (k, c) in u.enumerated() {
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if c != 45 { return false }
            } else if !((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)) {
                return false
            }
        }
        return true
    }

    static func invalid(_ field: String, _ reason: String) -> FieldProblem {
        FieldProblem(field: field, reason: reason, kind: IngestError.Kind.invalidMessage)
    }
}
