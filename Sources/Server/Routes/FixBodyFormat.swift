import Inputs
import Hummingbird
import Ingest
import TriggerEngine

/// How a `POST /v1/fixes` body is to be read: `?format=` (any trace format the CLI reads), else the Content-Type
/// (`text/csv`, `application/gpx+xml`, …), else NDJSON; `?device=` names the device of records without one (GPX,
/// NMEA, CSV without a device column); `?columns=device=Vehicle,timestamp="GPS Time"` maps CSV columns as the CLI's
/// `--columns` does.
struct FixBodyFormat {
    var format: TraceFormat
    var device: String?
    var columns: CSVColumns = .automatic

    static let contentTypes: [(prefix: String, format: TraceFormat)] = [
        ("text/csv", .csv), ("text/tab-separated-values", .csv), ("application/csv", .csv),
        ("application/gpx+xml", .gpx), ("application/gpx", .gpx),
        ("application/x-nmea", .nmea), ("text/x-nmea", .nmea),
        ("application/x-ndjson", .ndjson), ("application/ndjson", .ndjson), ("application/jsonl", .ndjson),
    ]

    init(_ request: Request) throws(Problem) {
        let q = request.uri.queryParameters
        if let name = q.get("format") {
            guard let f = TraceFormat(rawValue: String(name).lowercased()) else {
                throw Problem(.badRequest, title: "Unknown format",
                              detail: "format '\(name)': use one of \(TraceFormat.allCases.map(\.rawValue).joined(separator: ", "))",
                              extensions: [("parameter", "format")])
            }
            format = f
        } else {
            let type = request.headers[.contentType]?.lowercased() ?? ""
            format = Self.contentTypes.first { type.hasPrefix($0.prefix) }?.format ?? .ndjson
        }
        device = q.get("device").map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
        if let mapping = q.get("columns") {
            guard format == .csv else {
                throw Problem(.badRequest, title: "Bad query", detail: "columns applies to CSV bodies (format=csv)",
                              extensions: [("parameter", "columns")])
            }
            do { columns = try CSVColumns(mapping: String(mapping)) } catch {
                throw Problem(.badRequest, title: "Bad column mapping", detail: "columns: \(error.reason)",
                              extensions: [("parameter", "columns")])
            }
        }
    }

    /// The decoder for a format other than NDJSON (which keeps its own decoder and JSON-array support).
    func decoder() throws(Problem) -> TraceDecoder {
        guard let d = TraceDecoder(format: format, source: "request", defaultDevice: device, options: TraceOptions(csvColumns: columns)) else {
            throw Problem(.unsupportedMediaType, title: "Unsupported format", detail: "no decoder for \(format.rawValue) in this build")
        }
        return d
    }
}
