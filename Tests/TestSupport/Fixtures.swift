/// The fixtures every test target shares: one request and one fix line, as a client would send them.

/// A 100 m circle at Alexanderplatz; `repeats` and `identifier` vary per test.
public func requestJSON(_ identifier: String? = nil, repeats: Bool = true, title: String = "{device} {event}") -> String {
    let id = identifier.map { #""identifier": "\#($0)", "# } ?? ""
    return """
        {\(id)"content": {"title": "\(title)"},
         "trigger": {"type": "location", "repeats": \(repeats),
                     "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132}, "radius": 100}}}
        """
}

/// One NDJSON fix line, `second` after a fixed epoch, inside or well outside the circle.
public func fixLine(_ device: String, _ second: Int, inside: Bool) -> String {
    #"{"device": "\#(device)", "timestamp": \#(1_760_000_000 + second), "latitude": \#(inside ? 52.5219 : 52.53), "longitude": 13.4132}"#
}
