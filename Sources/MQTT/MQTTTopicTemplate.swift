/// A topic with placeholders filled in per notification, e.g. `geotrigger/{device}/{event}`.
///
/// Placeholders: `{device}`, `{event}` (`entry`/`exit`, SPEC §4 `trigger.event`), `{identifier}` (the request's) and
/// `{regionId}` (`trigger.region.id`). Values are percent-encoded where MQTT would give them a meaning or refuse them
/// (`/` `+` `#` `%`, control characters, a leading `$`), so one value is always exactly one topic level and two
/// different values never share a topic: device `a/b` publishes to `geotrigger/a%2Fb/entry`.
public struct MQTTTopicTemplate: Sendable, Hashable, CustomStringConvertible {
    public enum Field: String, Sendable, CaseIterable {
        case device, event, identifier, regionId
    }

    enum Part: Sendable, Hashable {
        case literal(String)
        case field(Field)
    }

    public let text: String
    let parts: [Part]

    public var description: String { text }

    /// The fields the template uses.
    public var fields: Set<Field> {
        Set(parts.compactMap { if case .field(let f) = $0 { f } else { nil } })
    }

    public init(_ text: String) throws(MQTTTopicTemplateError) {
        func fail(_ position: Int, _ reason: String) -> MQTTTopicTemplateError {
            MQTTTopicTemplateError(template: text, position: position, reason: reason)
        }
        guard !text.isEmpty else { throw fail(0, "the topic template is empty") }
        guard text.utf8.count <= 65535 else { throw fail(0, "the topic template is longer than 65535 bytes") }
        guard text.first != "$" else {
            throw fail(1, "topics starting with '$' are reserved for the broker ($SYS…)")
        }
        var parts: [Part] = []
        var literal = ""
        var placeholder: (name: String, start: Int)?
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let position = offset + 1
            if var open = placeholder {
                if scalar == "}" {
                    guard let field = Field(rawValue: open.name) else {
                        let known = Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                        throw fail(open.start, "unknown placeholder {\(open.name)}; known: \(known)")
                    }
                    if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                    parts.append(.field(field))
                    placeholder = nil
                } else if scalar == "{" {
                    throw fail(position, "'{' inside the placeholder opened at character \(open.start)")
                } else {
                    open.name.unicodeScalars.append(scalar)
                    placeholder = open
                }
                continue
            }
            switch scalar {
            case "{": placeholder = ("", position)
            case "}": throw fail(position, "'}' without a matching '{'")
            case "+", "#": throw fail(position, "MQTT wildcard '\(scalar)' is not allowed in a topic to publish to")
            default:
                if Self.isForbidden(scalar) {
                    throw fail(position, "control character U+\(String(scalar.value, radix: 16, uppercase: true)) is not allowed in a topic")
                }
                literal.unicodeScalars.append(scalar)
            }
        }
        if let open = placeholder { throw fail(open.start, "placeholder {\(open.name) is not closed") }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.text = text
        self.parts = parts
    }

    /// The topic for these values.
    public func render(_ values: MQTTTopicFields) -> String {
        var topic = ""
        for part in parts {
            switch part {
            case .literal(let s): topic += s
            case .field(let f): Self.appendEscaped(values[f], to: &topic)
            }
        }
        return topic
    }

    /// Control characters mosquitto refuses in topics (`mosquitto_validate_utf8`).
    static func isForbidden(_ s: Unicode.Scalar) -> Bool {
        s.value <= 0x1F || (0x7F...0x9F).contains(s.value)
    }

    static func appendEscaped(_ value: String, to topic: inout String) {
        if value.isEmpty { topic += "%00"; return }  // an empty level would merge with its neighbours' meaning
        let atStart = topic.isEmpty
        for (k, scalar) in value.unicodeScalars.enumerated() {
            let special = scalar == "/" || scalar == "+" || scalar == "#" || scalar == "%" || isForbidden(scalar)
                || (scalar == "$" && atStart && k == 0)
            guard special else { topic.unicodeScalars.append(scalar); continue }
            for byte in String(scalar).utf8 {
                topic += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
    }
}

/// The values a notification gives a topic template.
public struct MQTTTopicFields: Sendable, Hashable {
    public var device: String
    public var event: String
    public var identifier: String
    public var regionId: String

    public init(device: String, event: String, identifier: String, regionId: String) {
        self.device = device
        self.event = event
        self.identifier = identifier
        self.regionId = regionId
    }

    public subscript(field: MQTTTopicTemplate.Field) -> String {
        switch field {
        case .device: device
        case .event: event
        case .identifier: identifier
        case .regionId: regionId
        }
    }
}

/// A topic template that cannot be used, with the 1-based character position of the problem (0: the whole template).
public struct MQTTTopicTemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var template: String
    public var position: Int
    public var reason: String

    public init(template: String, position: Int, reason: String) {
        self.template = template
        self.position = position
        self.reason = reason
    }

    public var description: String {
        if template.isEmpty { return reason }
        return position > 0 ? "topic template \"\(template)\", character \(position): \(reason)" : "topic template \"\(template)\": \(reason)"
    }
}
