import Inputs
import Hummingbird
import Ingest
import TriggerEngine

/// How a `POST /v1/fixes` body is to be read: `?format=` (any trace format the CLI reads), else the Content-Type
/// (`text/csv`, `application/gpx+xml`, …), else NDJSON. A Content-Type that names no format and is not JSON (`curl -d`'s
/// `application/x-www-form-urlencoded`, `text/plain`) is read as NDJSON only when the body starts as JSON, and
/// answered 415 otherwise (`inspect`); a binary body (NUL bytes; in CSV and GPX bytes that are not UTF-8) is 415.
/// `?device=` names the device of records without one (GPX, NMEA, CSV without a device column);
/// `?columns=device=Vehicle,timestamp="GPS Time"` maps CSV columns as the CLI's `--columns` does.
struct FixBodyFormat {
    var format: TraceFormat
    var device: String?
    var columns: CSVColumns = .automatic
    /// The Content-Type when it names no format and is not JSON: the body must then start as JSON.
    var unnamedType: String?

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
            if let named = Problem.contentType(of: request), !Problem.saysJSON(named),
               !Self.contentTypes.contains(where: { type.hasPrefix($0.prefix) }) {
                unnamedType = named
            }
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

    /// Checks the body's first chunk: never binary (NMEA aside: receivers interleave binary protocols), and JSON
    /// when the Content-Type named nothing this route reads.
    func inspect(_ bytes: UnsafeRawBufferPointer) throws(Problem) {
        // Bytes that are not UTF-8 in a JSON body are each record's `invalid-utf8`; in CSV and GPX they are the file's.
        if format != .nmea, let evidence = TraceFormat.binaryEvidence(bytes),
           evidence.what == "a NUL byte" || format == .csv || format == .gpx {
            throw Problem.binaryBody(evidence)
        }
        if unnamedType != nil { try Problem.checkJSONBody(bytes, contentType: unnamedType, accepts: Problem.fixTypes) }
    }

    /// The decoder for a format other than NDJSON (which keeps its own decoder and JSON-array support).
    func decoder() throws(Problem) -> TraceDecoder {
        guard let d = TraceDecoder(format: format, source: "request", defaultDevice: device, options: TraceOptions(csvColumns: columns)) else {
            throw Problem(.unsupportedMediaType, title: "Unsupported format", detail: "no decoder for \(format.rawValue) in this build")
        }
        return d
    }
}
