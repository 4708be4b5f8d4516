import TriggerEngine

/// A precise account of one piece of input that could not be used: where (file, line or byte offset, field) and why.
public struct IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file name, `-` for standard input, or a transport name such as `http` or `tcp:127.0.0.1:5000`.
    public var source: String
    /// 1-based line number, when the format is line-oriented.
    public var line: Int?
    /// 0-based byte offset from the start of the input, when known.
    public var offset: Int?
    /// The field or element at fault, e.g. `latitude`, `trkpt/time`, `$GPRMC field 4`.
    public var field: String?
    public var reason: String
    /// A stable machine-readable reason class for counting (e.g. `bad-checksum`, `latitude-out-of-range`).
    public var kind: String

    public init(source: String, line: Int? = nil, offset: Int? = nil, field: String? = nil, reason: String, kind: String) {
        self.source = source
        self.line = line
        self.offset = offset
        self.field = field
        self.reason = reason
        self.kind = kind
    }

    /// `trace.nmea:12: field latitude: "91.5" is outside [-90, 90]`
    public var description: String {
        var s = source
        if let line { s += ":\(line)" } else if let offset { s += "@\(offset)" }
        if let field { s += ": field \(field)" }
        return s + ": " + reason
    }
}
