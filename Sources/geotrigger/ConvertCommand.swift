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
            Rejected records go to standard error with file, line and reason (the first --show-errors of them; \
            --rejections FILE writes every one); a trace that cannot be opened or whose \
            format cannot be told is reported and skipped, and the others are converted. Progress is shown on \
            standard error when it is a terminal.

            \(TraceInputOptions.help)

            \(ExitStatus.help(replay: false))
            """)

    @Argument(help: "Trace files (GPX, NMEA, CSV, NDJSON, OwnTracks, Traccar, gpsd JSON) or a service's journal directory; `-` reads standard input.") var traces: [String]
    @OptionGroup var input: TraceInputOptions
    @Option(name: .shortAndLong, help: "Write here instead of standard output.") var output: String?
    @Flag(help: "Stop at the first bad record or unusable file (exit 2).") var strict = false
    @Option(help: ArgumentHelp("Also write every refused record here, one JSON object per line (file, line or fix ordinal, field, kind, reason).", valueName: "file"))
    var rejections: String?
    @Option(help: "Most refused records to list individually on standard error.") var showErrors = 20

    func run() throws {
        for (option, path) in [("-o", output), ("--rejections", rejections)] {
            if let path, path != "-", let problem = FileBytes.cannotWrite(path) { throw ExitStatus.fail("\(option) \(path): \(problem)") }
        }
        let rejectionLog: RejectionLog?
        do { rejectionLog = try rejections.map { try RejectionLog(path: $0) } } catch {
            throw ExitStatus.fail("--rejections \(error)")
        }
        let sink: OutputSink
        do { sink = try OutputSink(path: output) } catch { throw ExitStatus.fail("-o \(error)") }
        let factory = input.factory
        var writer = JSONWriter(capacity: 256)
        var rejected = 0, converted = 0, listed = 0
        let showErrors = showErrors
        var skipped: [String] = []
        var failed = false
        func say(_ text: String) { FileHandle.standardError.write(text.data(using: .utf8)!) }
        /// Lists a refusal on standard error, up to `--show-errors` of them.
        func list(_ text: @autoclosure () -> String) {
            guard listed < showErrors else { return }
            listed += 1
            say(text())
        }
        for path in traces {
            var ordinal = 0
            var progress = TerminalProgress(total: nil, label: "convert \(path):")
            do {
                var reader = try factory.open(path, format: input.traceFormat, device: input.device)
                progress = TerminalProgress(total: reader.size, label: "convert \(path):")
                try reader.readAll(
                    onRecord: { fix in
                        ordinal += 1
                        if let reason = fix.invalidity {
                            rejected += 1
                            list("rejected: \(path): fix \(ordinal): \(fix.device) \(fix.timestamp): \(reason)\n")
                            rejectionLog?.write(fix, reason, source: path, ordinal: ordinal)
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
                        list("rejected: \(e)\n")
                        rejectionLog?.write(e)
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
        rejectionLog?.close()
        var notListed = ""
        if let rejections, rejected > 0 {
            notListed = " (all written to \(rejections))"
        } else if rejected > listed {
            notListed = " (\(rejected - listed) not listed: --rejections FILE writes every one)"
        }
        say("converted \(counted(converted, "fix", "fixes")), rejected \(counted(rejected, "record"))\(notListed)"
            + (skipped.isEmpty ? "" : ", skipped \(skipped.count) of \(counted(traces.count, "file"))") + "\n")
        if failed { throw ExitStatus.unusableInput.code }
        if converted == 0 { throw ExitStatus.fail("no fix could be read from \(traces.joined(separator: ", "))") }
        if !skipped.isEmpty { throw ExitStatus.filesSkipped.code }
    }
}
