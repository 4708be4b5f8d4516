/// How the decoders read what a format leaves open: which CSV columns hold what, and what a GPX device is.
public struct TraceOptions: Sendable, Hashable {
    /// CSV columns named by the user; the rest are found from the header.
    public var csvColumns: CSVColumns
    /// GPX: each track or route is its own device, named by its `<name>` (default: one device per file).
    public var gpxDevicePerTrack: Bool
    /// GPX: waypoints are fixes too (default: left out with one warning).
    public var gpxWaypoints: Bool

    public init(csvColumns: CSVColumns = .automatic, gpxDevicePerTrack: Bool = false, gpxWaypoints: Bool = false) {
        self.csvColumns = csvColumns
        self.gpxDevicePerTrack = gpxDevicePerTrack
        self.gpxWaypoints = gpxWaypoints
    }
}
