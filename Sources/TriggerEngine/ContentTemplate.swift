/// A content string with placeholders (SPEC §1), parsed once when the request is added so that an unknown
/// placeholder is refused then, and rendering at firing time is a simple concatenation.
/// `{{` and `}}` write literal braces.
public struct ContentTemplate: Hashable, Sendable {
    public enum Placeholder: Hashable, Sendable {
        case device, regionID, regionName, event, fixTime, fixLatitude, fixLongitude, beaconProximity
        /// Proximity requests: the other device, and the distance to it in whole metres.
        case nearbyDevice, nearbyDistance
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
    /// Scans UTF-8 bytes (braces are ASCII, so they never occur inside a multi-byte character): iterating
    /// `Character`s here was most of the allocations of loading a request. Errors still count characters.
    public init(_ source: String, userInfoKeys: Set<String>) throws(TemplateError) {
        self.source = source
        // Most content strings without a placeholder are a single text segment: no scan into a copy of the bytes.
        if !source.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }) {
            self.segments = source.isEmpty ? [] : [.text(source)]
            return
        }
        var segments: [Segment] = []
        segments.reserveCapacity(4)
        var text: [UInt8] = []
        let bytes = Array(source.utf8)
        // The character position of byte `i`, for error messages only.
        func character(_ i: Int) -> Int { String(decoding: bytes[..<i], as: UTF8.self).count }
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        var i = 0
        var runStart = 0  // the start of the text run not yet copied into `text`
        while i < bytes.count {
            let c = bytes[i]
            guard c == open || c == close else { i += 1; continue }
            if i + 1 < bytes.count, bytes[i + 1] == c {
                text.append(contentsOf: bytes[runStart..<i])
                text.append(c)  // `{{` or `}}`: a literal brace
                i += 2
                runStart = i
                continue
            }
            guard c == open else {
                throw TemplateError(reason: "unmatched '}' at character \(character(i)); write '}}' for a literal brace")
            }
            guard let end = bytes[(i + 1)...].firstIndex(of: close) else {
                throw TemplateError(reason: "unclosed '{' at character \(character(i))")
            }
            let name = String(decoding: bytes[(i + 1)..<end], as: UTF8.self)
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
            case "nearby.device": p = .nearbyDevice
            case "nearby.distance": p = .nearbyDistance
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
                            + "{fix.time}, {fix.latitude}, {fix.longitude}, {beacon.proximity}, {nearby.device}, {nearby.distance}, "
                            + "{userInfo.KEY}")
                }
            }
            // A run without a literal brace becomes its segment straight from the bytes, not through `text`.
            if text.isEmpty {
                if runStart < i { segments.append(.text(String(decoding: bytes[runStart..<i], as: UTF8.self))) }
            } else {
                text.append(contentsOf: bytes[runStart..<i])
                segments.append(.text(String(decoding: text, as: UTF8.self)))
                text.removeAll(keepingCapacity: true)
            }
            segments.append(.placeholder(p))
            i = end + 1
            runStart = i
        }
        if text.isEmpty {
            if runStart < bytes.count {
                segments.append(.text(runStart == 0 ? source : String(decoding: bytes[runStart...], as: UTF8.self)))
            }
        } else {
            text.append(contentsOf: bytes[runStart..<bytes.count])
            segments.append(.text(String(decoding: text, as: UTF8.self)))
        }
        self.segments = segments
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
