import JSON
import ArgumentParser
import Foundation
import Ingest
import TriggerEngine

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Prints the fixes in traces exactly as the engine would see them, as NDJSON (SPEC §2 field names).",
        discussion: """
            Rejected records go to standard error with file, line and reason; a trace that cannot be opened or whose \
            format cannot be told is reported and skipped, and the others are converted. Progress is shown on \
            standard error when it is a terminal.

            \(TraceInputOptions.help)

            \(ExitStatus.help(replay: false))
            """)

    @Argument(help: "Trace files (GPX, NMEA, CSV, NDJSON, OwnTracks, Traccar, gpsd JSON) or a service's journal directory; `-` reads standard input.") var traces: [String]
    @OptionGroup var input: TraceInputOptions
    @Option(name: .shortAndLong, help: "Write here instead of standard output.") var output: String?
    @Flag(help: "Stop at the first bad record or unusable file (exit 2).") var strict = false

    func run() throws {
        if let output, output != "-", let problem = FileBytes.cannotWrite(output) { throw ExitStatus.fail("-o \(output): \(problem)") }
        let sink: OutputSink
        do { sink = try OutputSink(path: output) } catch { throw ExitStatus.fail("-o \(error)") }
        let factory = input.factory
        var writer = JSONWriter(capacity: 256)
        var rejected = 0, converted = 0
        var skipped: [String] = []
        var failed = false
        func say(_ text: String) { FileHandle.standardError.write(text.data(using: .utf8)!) }
        for path in traces {
            var progress = TerminalProgress(total: nil, label: "convert \(path):")
            do {
                var reader = try factory.open(path, format: input.traceFormat, device: input.device)
                progress = TerminalProgress(total: reader.size, label: "convert \(path):")
                try reader.readAll(
                    onRecord: { fix in
                        if let reason = fix.invalidity {
                            rejected += 1
                            say("rejected: \(path): \(fix.device) \(fix.timestamp): \(reason)\n")
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
                        progress.finish()
                        say("rejected: \(e)\n")
                    },
                    shouldContinue: { !failed },
                    progress: { progress.update(bytes: $0, records: converted) })
                progress.finish()
                for warning in reader.warnings { say(warning.commandLineText) }
            } catch {
                progress.finish()
                say("geotrigger: \(error) " + (strict ? "(--strict: stopped at the first unusable file)\n" : "(skipped)\n"))
                skipped.append(path)
                if strict { failed = true }
            }
            if failed { break }
        }
        sink.flush()
        say("converted \(counted(converted, "fix", "fixes")), rejected \(counted(rejected, "record"))"
            + (skipped.isEmpty ? "" : ", skipped \(skipped.count) of \(counted(traces.count, "file"))") + "\n")
        if failed { throw ExitStatus.unusableInput.code }
        if converted == 0 { throw ExitStatus.fail("no fix could be read from \(traces.joined(separator: ", "))") }
        if !skipped.isEmpty { throw ExitStatus.filesSkipped.code }
    }
}
