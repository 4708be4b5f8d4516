/// The trace formats `replay` and `convert` read (SPEC §2).
public enum TraceFormat: String, CaseIterable, Sendable {
    case gpx, nmea, csv, ndjson, owntracks, traccar, gpsd
}
