import Foundation
import Testing

/// The command line's error cases, each with its whole message and exit status: one form (`geotrigger: …` on
/// standard error), the system's reason for a file, outputs checked before the replay, statuses as `--help` and
/// docs/traces.md list them (1 only for a failed --expect).
@Suite struct CLIErrorsTests {
    static func temporary(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gt-\(UUID())-\(name)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let replay = ["replay", "Data/demo-requests.json", "Data/demo-drive.csv"]

    @Test func anOutputIntoAMissingFolderIsRefusedBeforeTheReplayWithStatus2() async throws {
        for option in ["-o", "--report", "--write-expect"] {
            let r = try await CLIRunner.run(Self.replay + [option, "/nonexistent/dir/x"])
            #expect(r.status == 2, "\(option): \(r.stderr)")
            // Nothing else: the replay never started.
            #expect(r.stderr == "geotrigger: \(option) /nonexistent/dir/x: cannot write into /nonexistent/dir: No such file or directory\n")
            #expect(r.stdout.isEmpty)
        }
        let convert = try await CLIRunner.run(["convert", "Data/demo-drive.csv", "-o", "/nonexistent/dir/x"])
        #expect(convert.status == 2)
        #expect(convert.stderr == "geotrigger: -o /nonexistent/dir/x: cannot write into /nonexistent/dir: No such file or directory\n")
        let folder = try await CLIRunner.run(Self.replay + ["--report", "/tmp"])
        #expect(folder.status == 2)
        #expect(folder.stderr == "geotrigger: --report /tmp: Is a directory\n")
    }

    @Test func aMissingExpectationOrRegionFileSaysTheSystemsReason() async throws {
        let expect = try await CLIRunner.run(Self.replay + ["--expect", "nosuch.ndjson"])
        #expect(expect.status == 2)  // not 1: nothing was compared
        #expect(expect.stderr == "geotrigger: --expect nosuch.ndjson: No such file or directory\n")
        let regions = try await CLIRunner.run(["replay", "nosuch.json", "Data/demo-drive.csv"])
        #expect(regions.status == 2)
        #expect(regions.stderr == "geotrigger: nosuch.json: cannot read the region file: No such file or directory\n")
    }

    @Test func swappedArgumentsSayWhatTheFileLooksLike() async throws {
        let gpx = try await CLIRunner.run(["replay", "Data/demo-drive.gpx", "Data/demo-requests.json"])
        #expect(gpx.status == 2)
        #expect(gpx.stderr == "geotrigger: Data/demo-drive.gpx: this looks like a GPX trace, not regions; a region file is "
                    + "JSON requests or a GeoJSON FeatureCollection, and comes first: geotrigger replay REGIONS TRACE…\n")
        let csv = try await CLIRunner.run(["replay", "Data/demo-drive.csv", "Data/demo-requests.json"])
        #expect(csv.stderr.hasPrefix("geotrigger: Data/demo-drive.csv: this looks like a CSV trace, not regions;"), "\(csv.stderr)")
        let fixes = try CLIErrorsTests.temporary("fixes.ndjson", Array("""
            {"device":"a","timestamp":1700000000,"latitude":52.5,"longitude":13.4}
            {"device":"a","timestamp":1700000010,"latitude":52.5,"longitude":13.4}

            """.utf8))
        defer { try? FileManager.default.removeItem(atPath: fixes) }
        let ndjson = try await CLIRunner.run(["replay", fixes, "Data/demo-drive.csv"])
        #expect(ndjson.status == 2)
        #expect(ndjson.stderr.hasPrefix("geotrigger: \(fixes): this looks like NDJSON fixes, one JSON object per line, not regions;"),
                "\(ndjson.stderr)")
        // The region file where a trace goes: that trace is skipped with what it looked like.
        let asTrace = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-requests.json"])
        #expect(asTrace.status == 2)  // no fix read
        #expect(asTrace.stderr.contains("geotrigger: Data/demo-requests.json: this looks like a region file (JSON requests or "
                                        + "GeoJSON), not a trace; the region file comes first: geotrigger replay REGIONS TRACE… (skipped)\n"),
                "\(asTrace.stderr)")
        #expect(!asTrace.stderr.contains("unexpected character"))
    }

    @Test func strictSaysItsErrorOnce() async throws {
        let trace = """
            {"device":"t","timestamp":"2026-11-20T07:00:00Z","latitude":52.54,"longitude":13.40}
            {"device":"t","timestamp":"2026-11-20T07:00:05Z","latitude":95,"longitude":13.40}

            """
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "-", "--strict"], stdin: trace)
        #expect(r.status == 2)
        #expect(r.stderr == "geotrigger: -:2: field latitude: latitude is outside [-90, 90] (95.0) (--strict: stopped at the first bad record)\n")
    }

    @Test func usageErrorsTakeTheSamePrefixAndStatus64() async throws {
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json"])
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix("geotrigger: Missing expected argument '<traces> ...'"), "\(r.stderr)")
        #expect(!r.stderr.contains("Error:"))
        let speed = try await CLIRunner.run(Self.replay + ["--speed", "0"])
        #expect(speed.status == 64)
        #expect(speed.stderr.hasPrefix("geotrigger: --speed must be > 0\n"), "\(speed.stderr)")
        // `serve` and `token` (the geotrigger-serve executable) name themselves the same way.
        let serve = try await CLIRunner.run(["serve", "--bogus"])
        #expect(serve.status == 64)
        #expect(serve.stderr.hasPrefix("geotrigger serve: Unknown option '--bogus'\n"), "\(serve.stderr)")
        let token = try await CLIRunner.run(["token", "create"])
        #expect(token.status == 64)
        #expect(token.stderr.hasPrefix("geotrigger token: Missing expected argument '--scope <scope>'\n"), "\(token.stderr)")
    }

    @Test func tileOptionsSayWhatIsWrongBeforeTheReplay() async throws {
        let noScheme = try await CLIRunner.run(Self.replay + ["--report", "/tmp/gt-r.html", "--tiles", "tile.example.org/{z}/{x}/{y}.png"])
        #expect(noScheme.status == 64)
        #expect(noScheme.stderr.hasPrefix("geotrigger: --tiles tile.example.org/{z}/{x}/{y}.png: a tile URL template starts with https:// or http://, e.g. https://tile.example.org/{z}/{x}/{y}.png\n"), "\(noScheme.stderr)")
        let noY = try await CLIRunner.run(Self.replay + ["--report", "/tmp/gt-r.html", "--tiles", "https://t.example.org/{z}/{x}.png"])
        #expect(noY.status == 64)
        #expect(noY.stderr.hasPrefix("geotrigger: --tiles https://t.example.org/{z}/{x}.png: the template has no {y}; tiles are addressed by {z}/{x}/{y}\n"), "\(noY.stderr)")
        let noReport = try await CLIRunner.run(Self.replay + ["--tiles", "https://t.example.org/{z}/{x}/{y}.png"])
        #expect(noReport.status == 64)
        #expect(noReport.stderr.hasPrefix("geotrigger: --tiles is for the map of --report; give --report FILE too\n"), "\(noReport.stderr)")
        let attribution = try await CLIRunner.run(Self.replay + ["--report", "/tmp/gt-r.html", "--tiles-attribution", "© someone"])
        #expect(attribution.status == 64)
        #expect(attribution.stderr.hasPrefix("geotrigger: --tiles-attribution names the tile server of --tiles; give --tiles too\n"), "\(attribution.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/gt-r.html"))
    }

    @Test func aBinaryFileIsRefusedAsBinaryWithoutShowingItsBytes() async throws {
        // Commas in the first line: once taken for CSV, with its header bytes printed.
        let binary = try Self.temporary("capture.dat", Array("PK,\u{3};x,y".utf8) + [0, 0, 0xFF, 0xFE, 0x1B] + Array("[2J,\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: binary) }
        let r = try await CLIRunner.run(["convert", binary])
        #expect(r.status == 2)
        #expect(r.stderr.contains("geotrigger: \(binary): a binary file, not a trace (a NUL byte at byte 8); traces are text: "
                                  + "GPX, NMEA, CSV, NDJSON, OwnTracks, Traccar or gpsd JSON (skipped)\n"), "\(r.stderr)")
        #expect(!r.stderr.contains("PK") && !r.stderr.contains("\u{1B}"))
        // A named format does not make it text.
        let named = try await CLIRunner.run(["convert", binary, "--format", "csv"])
        #expect(named.stderr.contains("a binary file, not a trace (a NUL byte at byte 8)"), "\(named.stderr)")
    }

    @Test func countsAreInTheRightNumber() async throws {
        let r = try await CLIRunner.run(["convert", "-"], stdin: #"{"device":"a","timestamp":1700000000,"latitude":52.5,"longitude":13.4}"# + "\n")
        #expect(r.status == 0)
        #expect(r.stderr.hasSuffix("converted 1 fix, rejected 0 records\n"), "\(r.stderr)")
    }
}
