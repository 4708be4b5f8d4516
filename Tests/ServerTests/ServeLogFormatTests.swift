import Foundation
import JSON
import Testing
import TestSupport

/// `serve`'s log lines: the message first, durations rounded; `--log-format json` one object per line. Read from
/// a real `geotrigger serve` that fails its start (a database folder that does not exist), which logs and exits 2.
@Suite struct ServeLogFormatTests {
    static func failedStart(_ extra: [String]) throws -> (status: Int32, stderr: String) {
        let folder = try TestFolders.make("log-format")
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNAL_STREAM"] = nil
        let (status, text) = try BuiltBinary.run(["serve", "--listen", "127.0.0.1:0", "--database", folder.appendingPathComponent("no/such/g.sqlite").path] + extra,
                                                 environment: environment, reading: .error)
        return (status, text)
    }

    @Test func textPutsTheMessageBeforeItsPairs() throws {
        let (status, stderr) = try Self.failedStart([])
        #expect(status == 2)
        let line = try #require(stderr.split(separator: "\n").first { $0.contains("cannot start") }.map(String.init), "\(stderr)")
        // `TIME critical cannot start error=cannot open the database …`
        let afterLevel = try #require(line.range(of: " critical ")).upperBound
        #expect(line[afterLevel...].hasPrefix("cannot start error=cannot open the database "), "\(line)")
        #expect(line.contains("does not exist; create it or choose another path"), "\(line)")
    }

    @Test func jsonIsOneObjectPerLine() throws {
        let (status, stderr) = try Self.failedStart(["--log-format", "json"])
        #expect(status == 2)
        let lines = stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        let objects = try lines.map { try JSONParser.parse(String($0)) }
        let failure = try #require(objects.first { $0["message"]?.stringValue == "cannot start" }, "\(stderr)")
        #expect(failure["level"]?.stringValue == "critical")
        #expect(failure["label"]?.stringValue == "geotrigger.serve")
        #expect(failure["error"]?.stringValue?.contains("does not exist") == true)
        #expect(failure["time"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test func anUnknownFormatIsRefusedWithTheChoices() throws {
        let (status, stderr) = try Self.failedStart(["--log-format", "xml"])
        #expect(status == 2)
        #expect(stderr.contains("unknown log format 'xml': use text or json"), "\(stderr)")
    }
}
