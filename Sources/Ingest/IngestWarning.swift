/// Something about a whole input that the user should know although every record may have been read: a column that
/// looks like the wrong device, rows or elements left out by choice. Reported once per input, never per record.
public struct IngestWarning: Sendable, Hashable, CustomStringConvertible {
    public var source: String
    /// The line the warning is about (a header), when there is one.
    public var line: Int?
    /// A stable machine-readable class, one of `Kind`.
    public var kind: String
    public var message: String

    public init(source: String, line: Int? = nil, kind: String, message: String) {
        self.source = source
        self.line = line
        self.kind = kind
        self.message = message
    }

    /// `bus.csv:1: column "id" gives nearly every row its own device …`
    public var description: String { source + (line.map { ":\($0)" } ?? "") + ": " + message }

    public enum Kind {
        /// The device column names a different device on nearly every row (a row number read as a device).
        public static let devicePerRow = "device-per-row"
        /// Rows left unread because the header lacks a required column (reported once as a `missing-column` error).
        public static let rowsNotRead = "rows-not-read"
        /// GPX waypoints left out (they are not a track; `waypoints` reads them).
        public static let waypointsSkipped = "waypoints-skipped"
    }
}
