/// A content string with placeholders (SPEC §1), parsed once when the request is added so that an unknown
/// placeholder is refused then, and rendering at firing time is a simple concatenation.
/// `{{` and `}}` write literal braces.
public struct ContentTemplate: Hashable, Sendable {
    public enum Placeholder: Hashable, Sendable {
        case device, regionID, regionName, event, fixTime, fixLatitude, fixLongitude, beaconProximity
        case userInfo(String)
    }

    enum Segment: Hashable, Sendable {
        case text(String)
        case placeholder(Placeholder)
    }

    let segments: [Segment]
    public let source: String

    public var isConstant: Bool { segments.allSatisfy { if case .text = $0 { return true } else { return false } } }

    /// The placeholders the SPEC defines; `userInfo.KEY` must name a top-level key of the request's userInfo.
    public init(_ source: String, userInfoKeys: Set<String>) throws(TemplateError) {
        self.source = source
        var segments: [Segment] = []
        var text = ""
        var chars = Array(source)
        var i = 0
        chars.reserveCapacity(0)
        while i < chars.count {
            let c = chars[i]
            if c == "{" {
                if i + 1 < chars.count, chars[i + 1] == "{" { text.append("{"); i += 2; continue }
                guard let close = chars[(i + 1)...].firstIndex(of: "}") else {
                    throw TemplateError(reason: "unclosed '{' at character \(i)")
                }
                let name = String(chars[(i + 1)..<close])
                let p: Placeholder
                switch name {
                case "device": p = .device
                case "region.id": p = .regionID
                case "region.name": p = .regionName
                case "event": p = .event
                case "fix.time": p = .fixTime
                case "fix.latitude": p = .fixLatitude
                case "fix.longitude": p = .fixLongitude
                case "beacon.proximity": p = .beaconProximity
                default:
                    if name.hasPrefix("userInfo.") {
                        let key = String(name.dropFirst("userInfo.".count))
                        guard userInfoKeys.contains(key) else {
                            throw TemplateError(reason: "placeholder {\(name)} names a key that userInfo does not have")
                        }
                        p = .userInfo(key)
                    } else {
                        throw TemplateError(
                            reason: "unknown placeholder {\(name)}; known: {device}, {region.id}, {region.name}, {event}, "
                                + "{fix.time}, {fix.latitude}, {fix.longitude}, {beacon.proximity}, {userInfo.KEY}")
                    }
                }
                if !text.isEmpty { segments.append(.text(text)); text = "" }
                segments.append(.placeholder(p))
                i = close + 1
            } else if c == "}" {
                if i + 1 < chars.count, chars[i + 1] == "}" { text.append("}"); i += 2; continue }
                throw TemplateError(reason: "unmatched '}' at character \(i); write '}}' for a literal brace")
            } else {
                text.append(c)
                i += 1
            }
        }
        if !text.isEmpty { segments.append(.text(text)) }
        self.segments = segments
        chars = []
    }

    public func render(_ value: (Placeholder) -> String) -> String {
        if segments.count == 1, case .text(let t) = segments[0] { return t }
        var out = ""
        for s in segments {
            switch s {
            case .text(let t): out += t
            case .placeholder(let p): out += value(p)
            }
        }
        return out
    }
}

public struct TemplateError: Error, Sendable, Hashable {
    public var reason: String
}
