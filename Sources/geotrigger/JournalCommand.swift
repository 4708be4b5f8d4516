import JSON
import ArgumentParser
import Foundation
import EngineLog
import Journal
import TriggerEngine

/// `geotrigger journal`: a service's journal as input for other tools. `export` writes the fixes (or sightings) it
/// accepted, in the order it accepted them, as NDJSON: `replay` re-runs last week's real stream against edited
/// regions (`geotrigger journal export DIR | geotrigger replay edited.json - --expect …`). `inspect` summarises.
struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Read a service's journal: export its accepted fixes or sightings as NDJSON, or summarise it.",
        subcommands: [Export.self, Inspect.self])

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the fixes (or sightings) a service accepted, in journal order, as NDJSON.",
            discussion: """
                Reads the journal directory of `serve` (its --journal, by default the database path with .journal \
                appended); the service may be running. Records of requests and clock ticks are skipped (replay takes \
                its regions from its own file). Damage inside the journal stops the export with file and offset \
                (exit 2); a torn tail ends it quietly.
                """)

        @Argument(help: "The journal directory.") var directory: String
        @Option(name: .shortAndLong, help: "Write here instead of standard output.") var output: String?
        @Flag(help: "Export beacon sightings instead of fixes.") var sightings = false
        @Option(help: "Start at this journal position (default: the first still on disk).") var from: UInt64 = 0

        func run() throws {
            let out: FileHandle
            if let output {
                guard FileManager.default.createFile(atPath: output, contents: nil), let h = FileHandle(forWritingAtPath: output) else {
                    FileHandle.standardError.write("geotrigger: cannot write \(output)\n".data(using: .utf8)!)
                    throw ExitCode(2)
                }
                out = h
            } else {
                out = FileHandle.standardOutput
            }
            var written = 0, records = 0
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 21)
            do {
                var reader = try JournalReader(directory: directory, from: from)
                while let (position, record) = try reader.next() {
                    records += 1
                    let r = try HostRecord(record, position: position)
                    switch (r.input, sightings) {
                    case (.fixes(let fixes), false): written += JournalCommand.append(fixes, to: &buffer) { $0.writeJSON(to: &$1) }
                    case (.sightings(let list), true): written += JournalCommand.append(list, to: &buffer) { $0.writeJSON(to: &$1) }
                    default: break
                    }
                    if buffer.count > 1 << 20 {
                        out.write(Data(buffer))
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
            } catch {
                out.write(Data(buffer))
                FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
                throw ExitCode(2)
            }
            out.write(Data(buffer))
            FileHandle.standardError.write("journal \(directory): \(counted(records, "record")), \(sightings ? counted(written, "sighting") : counted(written, "fix", "fixes")) exported\n".data(using: .utf8)!)
        }
    }

    /// Appends each item as one NDJSON line; returns how many.
    static func append<T>(_ items: [T], to buffer: inout [UInt8], _ write: (T, inout JSONWriter) -> Void) -> Int {
        for item in items {
            var w = JSONWriter(capacity: 256)
            write(item, &w)
            buffer += w.bytes
            buffer.append(0x0A)
        }
        return items.count
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Summarise a journal: records by kind, positions, checkpoints.")

        @Argument(help: "The journal directory.") var directory: String

        func run() throws {
            var counts: [String: Int] = [:]
            var fixes = 0, sightings = 0, notifications = 0
            var first: UInt64?, last: UInt64?
            do {
                var reader = try JournalReader(directory: directory)
                while let (position, record) = try reader.next() {
                    first = first ?? position
                    last = position
                    let r = try HostRecord(record, position: position)
                    notifications += r.notifications.count
                    switch r.input {
                    case .requests: counts["requests", default: 0] += 1
                    case .remove, .removeAll: counts["removals", default: 0] += 1
                    case .fixes(let f): counts["fix batches", default: 0] += 1; fixes += f.count
                    case .sightings(let s): counts["sighting batches", default: 0] += 1; sightings += s.count
                    case .clock: counts["clock ticks", default: 0] += 1
                    case .observerStarted, .observerListening: counts["observer records", default: 0] += 1
                    case .group: counts["group changes", default: 0] += 1
                    }
                }
                let checkpoints = try CheckpointFiles(directory: directory).list()
                var lines = ["journal \(directory)"]
                lines.append("  records      \(first.map { "\($0)…\(last!)" } ?? "none")")
                for (k, n) in counts.sorted(by: { $0.key < $1.key }) { lines.append("  \(k.padding(toLength: 17, withPad: " ", startingAt: 0))\(n)") }
                lines.append("  fixes        \(fixes)")
                lines.append("  sightings    \(sightings)")
                lines.append("  notifications \(notifications)")
                lines.append("  checkpoints  \(checkpoints.isEmpty ? "none" : checkpoints.map { "at \($0.position)" }.joined(separator: ", "))")
                print(lines.joined(separator: "\n"))
            } catch {
                FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
                throw ExitCode(2)
            }
        }
    }
}
