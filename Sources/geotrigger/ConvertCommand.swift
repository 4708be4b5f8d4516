import ArgumentParser
import Foundation
import Ingest
import TriggerEngine

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Prints the fixes in traces exactly as the engine would see them, as NDJSON (SPEC §2 field names).",
        discussion: "Rejected records go to standard error with file, line and reason. Exit status 2 if any record was rejected with --strict.")

    @Argument(help: "Trace files (GPX, NMEA, CSV, NDJSON, OwnTracks, Traccar); `-` reads standard input.") var traces: [String]
    @Option(help: "Trace format: gpx, nmea, csv, ndjson, owntracks, traccar (default: detect).") var format: String?
    @Option(help: "Device id for traces that carry none (default: the file's base name).") var device: String?
    @Option(name: .shortAndLong, help: "Write here instead of standard output.") var output: String?
    @Flag(help: "Stop at the first bad record (exit 2).") var strict = false

    func validate() throws {
        if let format, TraceFormat(rawValue: format) == nil { throw ValidationError("unknown --format \(format)") }
    }

    func run() throws {
        let sink = try OutputSink(path: output)
        var writer = JSONWriter(capacity: 256)
        var rejected = 0, converted = 0
        var failed = false
        for path in traces {
            var reader = try DecoderFactory.open(path, format: format, device: device)
            try reader.readAll(
                onFix: { fix in
                    if let reason = fix.invalidity {
                        rejected += 1
                        FileHandle.standardError.write("rejected: \(path): \(fix.device) \(fix.timestamp): \(reason)\n".data(using: .utf8)!)
                        return
                    }
                    writer.bytes.removeAll(keepingCapacity: true)
                    fix.writeJSON(to: &writer)
                    sink.writeLine(writer.bytes)
                    converted += 1
                },
                onError: { e in
                    rejected += 1
                    if strict { failed = true }
                    FileHandle.standardError.write("rejected: \(e)\n".data(using: .utf8)!)
                },
                shouldContinue: { !failed })
        }
        sink.flush()
        FileHandle.standardError.write("converted \(converted) fixes, rejected \(rejected) records\n".data(using: .utf8)!)
        if failed { throw ExitCode(2) }
    }
}
