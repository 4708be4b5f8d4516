import ArgumentParser
import Foundation
import Ingest

/// The options `replay` and `convert` share for reading traces.
struct TraceInputOptions: ParsableArguments {
    @Option(help: "Trace format for every TRACE: \(TraceFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detect from the content, then the name).")
    var format: String?
    @Option(help: "Device id for traces that carry none (CSV without a device column, NMEA), and for every point of a GPX file (default: the file's base name, `stdin` for -).")
    var device: String?
    @Option(
        help: ArgumentHelp(
            "CSV: the columns that hold fix fields, e.g. device=Vehicle,timestamp=\"GPS Time\"; fields not named are found from the header (see below).",
            valueName: "field=column,..."),
        transform: { text in
            do { return try CSVColumns(mapping: text) } catch { throw ValidationError("\(error)") }
        })
    var columns: CSVColumns?
    @Flag(help: "GPX: each track or route is its own device, named by its <name> (default: one device per file).")
    var devicePerTrack = false
    @Flag(help: "GPX: read waypoints as fixes of the file's device too (default: they are left out).")
    var waypoints = false

    func validate() throws {
        if let format, TraceFormat(rawValue: format) == nil {
            throw ValidationError("unknown --format \(format); use one of \(TraceFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if device != nil, devicePerTrack {
            throw ValidationError("--device names one device per file; --device-per-track names one per GPX track: choose one")
        }
    }

    var traceFormat: TraceFormat? { format.flatMap(TraceFormat.init(rawValue:)) }

    var options: TraceOptions {
        TraceOptions(csvColumns: columns ?? .automatic, gpxDevicePerTrack: devicePerTrack, gpxWaypoints: waypoints)
    }

    var factory: DecoderFactory { DecoderFactory(options: options) }

    /// For `--help`: how inputs are told apart and read, with the recognised CSV header names.
    static let help: String = {
        var s = """
            Formats are told from the first bytes (`-` and pipes too), then the file name. CSV: the first line names the \
            columns; without --columns they are found by these names (case, spaces, _, - and . ignored; the first \
            match in each list wins, so a bare `id` is the device only when nothing better is there):

            """
        // Wrapped here, indented under the names: the help formatter would wrap the long lists to the margin.
        let indent = String(repeating: " ", count: 23)
        for field in CSVField.allCases {
            var line = "  " + (field.rawValue + (field.isRequired ? " *" : "")).padding(toLength: 21, withPad: " ", startingAt: 0)
            for (k, name) in field.recognisedNames.enumerated() {
                let word = name + (k == field.recognisedNames.count - 1 ? "" : ",")
                if line.count + word.count + 1 > 79, !line.hasSuffix(" ") {
                    s += line + "\n"
                    line = indent
                }
                line += (line.hasSuffix(" ") ? "" : " ") + word
            }
            s += line + "\n"
        }
        s += """
            (* required). NDJSON keys take the same names (but `id` and `name`; two names for one field in a \
            record are an error). The separator is told from the header: `,`, else `;` (where decimal commas are \
            read), else tab. Binary files are refused. Timestamps: RFC 3339, YYYY-MM-DD HH:MM:SS (UTC), or Unix \
            seconds or milliseconds. GPX: one \
            device per file (--device, else the file's base name; --device-per-track for one per named track); \
            waypoints only with --waypoints.
            """
        return s
    }()
}
