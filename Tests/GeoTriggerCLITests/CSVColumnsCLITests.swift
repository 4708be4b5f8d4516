import JSON
import Foundation
import TestSupport
import Testing
import TriggerEngine

/// `replay` and `convert` on CSV exports whose headers are not GeoTrigger's own: a row `id` beside the vehicle,
/// `GPS Time`, names only `--columns` can map.
@Suite struct CSVColumnsCLITests {
    /// `Data/demo-drive.csv` (device,timestamp,latitude,longitude,accuracy) under another header, with a row number
    /// in front, written to a temporary file.
    static func demoCSV(header: String) throws -> String {
        let rows = try String(contentsOfFile: CLIRunner.packageRoot.appendingPathComponent("Data/demo-drive.csv").path,
                              encoding: .utf8).split(separator: "\n").dropFirst()
        let text = header + "\n" + rows.enumerated().map { "\(23_811_684 + $0.offset),\($0.element)\n" }.joined()
        let path = TestFolders.path("gt-csv", suffix: ".csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let golden = CLIRunner.fixture("demo-csv.expected.ndjson")

    @Test func aVehicleColumnAndGPSTimeAreFoundBesideARowID() async throws {
        let trace = try Self.demoCSV(header: "id,Vehicle,GPS Time,Latitude,Longitude,Accuracy")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace, "--expect", Self.golden])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 10)
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
    }

    @Test func columnsMapsHeadersNothingRecognises() async throws {
        let trace = try Self.demoCSV(header: "Row,Truck,When (UTC),Latitude,Longitude,Accuracy")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        for mapping in ["device=Truck,timestamp=When (UTC)", #"device=Truck,timestamp="When (UTC)""#, "time=when (utc),device=TRUCK"] {
            let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace, "--columns", mapping, "--expect", Self.golden])
            #expect(r.status == 0, "\(mapping): \(r.stderr)")
            #expect(r.lines.count == 10)
        }
    }

    @Test func aHeaderWithoutTimeIsReportedOnceAndNothingReadIsExit2() async throws {
        let trace = try Self.demoCSV(header: "Row,Truck,When (UTC),Latitude,Longitude,Accuracy")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        for command in ["replay", "convert"] {
            let r = try await CLIRunner.run(command == "replay" ? ["replay", "Data/demo-requests.json", trace] : ["convert", trace])
            #expect(r.status == 2, "\(command): \(r.stderr)")
            #expect(r.stdout.isEmpty)
            // Once for the header, not once per row (the file has 323).
            #expect(r.stderr.components(separatedBy: "no column for timestamp").count - 1 == 2, "\(r.stderr)")  // the error and the warning
            #expect(r.stderr.contains(":1: the header has no column for timestamp"))
            #expect(r.stderr.contains("gps_time"))  // what would have been recognised
            #expect(r.stderr.contains("323 rows not read"))
            #expect(r.stderr.contains("--columns"))
            #expect(r.stderr.contains("no fix could be read"))
        }
    }

    @Test func aRowIDLeftAsTheOnlyDeviceCandidateIsWarnedAbout() async throws {
        let trace = try Self.demoCSV(header: "id,Lkw,timestamp,latitude,longitude,accuracy")
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(#"column "id" gives nearly every row its own device (323 devices in 323 rows)"#), "\(r.stderr)")
        #expect(r.stderr.contains("--columns device=COLUMN"))
        #expect(r.stderr.contains("warnings           1"))
        let mapped = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace, "--columns", "device=Lkw", "--expect", Self.golden])
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(!mapped.stderr.contains("warning"))
    }

    /// The issue's report on the real bus trace: `id` beside `Vehicle`, and `GPS Time`.
    @Test(.enabled(if: CLIRunner.sharedDataAvailable, "skipped: needs ../shared/data (traces/route14_outbound.csv)"))
    func theBusTraceWithAVehicleColumnReplaysLikeTheOriginal() async throws {
        let dir = try TestFolders.make("gt-bus")
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = CLIRunner.sharedData.appendingPathComponent("traces/route14_outbound.csv").path
        let text = try String(contentsOfFile: original, encoding: .utf8)
        let body = text[text.firstIndex(of: "\n")!...]
        let renamed = dir.appendingPathComponent("bus.csv").path
        try (#""id","Vehicle","trip_id","GPS Time","latitude","longitude","bearing","origin","destination","route_name","direction","operator""# + body)
            .write(toFile: renamed, atomically: true, encoding: .utf8)
        let regions = dir.appendingPathComponent("terminus.json").path
        try #"[{"identifier":"terminus","trigger":{"region":{"type":"circle","id":"petherick-road","center":{"latitude":53.4619,"longitude":-2.8950},"radius":150},"repeats":true}}]"#
            .write(toFile: regions, atomically: true, encoding: .utf8)
        let expected = try await CLIRunner.run(["replay", regions, original])
        let r = try await CLIRunner.run(["replay", regions, renamed])
        #expect(r.status == 0 && expected.status == 0, "\(r.stderr)")
        #expect(expected.lines.count > 10)
        #expect(r.stdout == expected.stdout)
        let devices = Set(r.lines.compactMap { try? JSONParser.parse($0)["device"]?.stringValue })
        #expect(devices.count == 8 && devices.contains("4716"))
    }

    @Test(arguments: ["replay", "convert"])
    func helpListsTheRecognisedHeaderNamesTheMappingAndTheExitStatus(command: String) async throws {
        let r = try await CLIRunner.run([command, "--help"])
        #expect(r.status == 0)
        let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // the help is wrapped
        for needle in ["--columns <field=column,...>", "vehicle_id", "gps_time", "horizontal_accuracy", "Exit status",
                       "--device-per-track", "--waypoints", "3 one or more trace files were"] {
            #expect(help.contains(needle), "\(command) --help lacks \(needle)")
        }
    }

    @Test func aBadMappingIsAUsageError() async throws {
        let r = try await CLIRunner.run(["convert", "Data/demo-drive.csv", "--columns", "colour=red"])
        #expect(r.status == 64)
        #expect(r.stderr.contains(#"unknown field "colour""#), "\(r.stderr)")
    }
}
