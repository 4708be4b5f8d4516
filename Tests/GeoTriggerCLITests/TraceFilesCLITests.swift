import JSON
import Foundation
import TestSupport
import Testing
import TriggerEngine

/// Which traces a command reads: `-` detected like a file, and one unusable file skipped rather than ending the run.
@Suite struct TraceFilesCLITests {
    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: CLIRunner.packageRoot.appendingPathComponent(path).path, encoding: .utf8)
    }

    static func temporary(_ name: String, _ text: String) throws -> String {
        let path = TestFolders.path("gt", suffix: "-\(name)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func csvOnStandardInputIsDetectedWithoutFormat() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "-", "--expect", CLIRunner.fixture("demo-csv.expected.ndjson")],
                                  stdin: try Self.text("Data/demo-drive.csv"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 10)
    }

    @Test func gpxAndNDJSONOnStandardInputAreDetectedToo() async throws {
        let gpx = try await CLIRunner.run(["convert", "-"], stdin: try Self.text("Data/demo-drive.gpx"))
        #expect(gpx.status == 0, "\(gpx.stderr)")
        #expect(Set(gpx.lines.compactMap { try? JSONParser.parse($0)["device"]?.stringValue }) == ["stdin"])
        let fromFile = try await CLIRunner.run(["convert", "Data/demo-drive.gpx", "--device", "stdin"])
        #expect(gpx.stdout == fromFile.stdout)
        let ndjson = try await CLIRunner.run(["convert", "-"], stdin: fromFile.stdout)
        #expect(ndjson.status == 0, "\(ndjson.stderr)")
        #expect(ndjson.stdout == fromFile.stdout)
    }

    @Test func emptyStandardInputIsNothingRead() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "-"], stdin: "")
        #expect(r.status == 2)
        #expect(r.stderr.contains("-: empty"), "\(r.stderr)")
        #expect(r.stderr.contains("no fix could be read"))
    }

    @Test func anUndetectableFileAmongSeveralIsSkippedAndTheRestReplayed() async throws {
        let notes = try Self.temporary("notes.txt", "hello\nworld\n")
        defer { try? FileManager.default.removeItem(atPath: notes) }
        let missing = "/nonexistent/trace.csv"
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", notes, "Data/demo-drive.csv", missing,
                                   "--expect", CLIRunner.fixture("demo-csv.expected.ndjson")])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.lines.count == 10)
        #expect(r.stderr.contains("\(notes): cannot tell the trace format from its content or name; use --format (skipped)"))
        #expect(r.stderr.contains("\(missing): No such file or directory (skipped)"))
        #expect(r.stderr.contains("files skipped      2"))
        #expect(r.stderr.contains("10 notifications match"))  // the summary and the comparison still happen
        // The expectation is the stronger verdict.
        let differs = try await CLIRunner.run(["replay", "Data/demo-requests.json", notes, "Data/demo-drive.csv",
                                         "--expect", CLIRunner.fixture("demo-csv.broken.ndjson")])
        #expect(differs.status == 1)
        let strict = try await CLIRunner.run(["replay", "Data/demo-requests.json", notes, "Data/demo-drive.csv", "--strict"])
        #expect(strict.status == 2)
        #expect(strict.stdout.isEmpty && !strict.stderr.contains("replay summary"))
    }

    @Test func convertSkipsAnUndetectableFileToo() async throws {
        let notes = try Self.temporary("notes.txt", "hello\nworld\n")
        defer { try? FileManager.default.removeItem(atPath: notes) }
        let r = try await CLIRunner.run(["convert", notes, "Data/demo-drive.csv"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.lines.count == 323)
        #expect(r.stderr.contains("converted 323 fixes, rejected 0 records, skipped 1 of 2 files"))
        let only = try await CLIRunner.run(["convert", notes])
        #expect(only.status == 2)  // nothing read at all outranks a skip
        #expect(only.stderr.contains("no fix could be read"))
    }
}
