import JSON
import EngineLog
import Journal
import Foundation
import Host
import Logging
import Storage
import Testing
import TestSupport
import TriggerEngine

/// A production journal is a replay input: `geotrigger journal export` writes the accepted fixes in journal order,
/// and `replay` of them against the same regions gives the notifications the service journaled.
@Suite struct JournalCommandTests {
    @Test func exportedFixesReplayToTheServicesNotifications() async throws {
        let directory = try TestFolders.make("journal-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "journal-export-test")
        let scenario = TimeScenario(seed: 11, devices: 6, beacons: false)
        let journal = directory.appendingPathComponent("g.journal").path

        // A service's life: requests, then the fixes in batches as they arrived.
        var journaled: [String] = []
        do {
            let log = try FileHostLog(directory: journal, logger: logger)
            let store = try SQLiteStore(path: directory.appendingPathComponent("g.sqlite").path, logger: logger)
            let host = try EngineHost(store: store, log: log, configuration: TriggerEngine.Configuration(clock: .eventTime), logger: logger)
            _ = try await host.add(try JSONParser.parse(scenario.requestsJSON))
            for batch in TimeScenario.batches(scenario.sorted, seed: 3) {
                let fixes = batch.compactMap { input -> LocationFix? in if case .fix(let f) = input { f } else { nil } }
                _ = try await host.process(fixes: fixes.enumerated().map { (line: $0.offset + 1, fix: $0.element) })
            }
            try log.forEachRecord(from: 0) { position, record in
                journaled += try HostRecord(record, position: position).notifications.compactMap { TimeScenario.key(jsonLine: $0.json) }
            }
            log.close()
        }
        #expect(journaled.count > 5, "the scenario fires too little to compare")

        let exported = directory.appendingPathComponent("fixes.ndjson").path
        let export = try await CLIRunner.run(["journal", "export", journal, "--output", exported])
        #expect(export.status == 0, "\(export.stderr)")
        let fixCount = scenario.sorted.count
        #expect(export.stderr.contains("\(fixCount) fixes exported"), "\(export.stderr)")
        let lines = try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == scenario.sorted.map(\.jsonLine))

        let regions = directory.appendingPathComponent("regions.json").path
        try scenario.requestsJSON.write(toFile: regions, atomically: true, encoding: .utf8)
        // The service ran without an end of input: compare without the replay's end-of-input firings.
        let replay = try await CLIRunner.run(["replay", regions, exported, "--format", "ndjson"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let replayed = replay.stdout.split(separator: "\n").compactMap { TimeScenario.key(jsonLine: String($0)) }
        let missing = Set(journaled).subtracting(replayed)
        #expect(missing.isEmpty, "journaled but not replayed: \(missing.sorted().prefix(3))")
        // What replay fires beyond the service are the deadlines its end of input settles (the service was still live).
        #expect(replayed.count >= journaled.count)

        // The journal directory itself is a trace: the same fixes, the same notifications.
        let direct = try await CLIRunner.run(["replay", regions, journal])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(direct.stdout == replay.stdout)
        #expect(!direct.stdout.isEmpty)
        let converted = try await CLIRunner.run(["convert", journal])
        #expect(converted.stdout.split(separator: "\n").map(String.init) == lines)

        // Damage inside it: the fixes before it are replayed, then the journal is reported with file and offset
        // and skipped (exit 3), as an unreadable trace file is.
        let damaged = directory.appendingPathComponent("damaged.journal")
        try FileManager.default.copyItem(atPath: journal, toPath: damaged.path)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: damaged.path).filter { $0.hasSuffix(".journal") }.sorted().first)
        var bytes = try Data(contentsOf: damaged.appendingPathComponent(segment))
        // The middle of the records: a preallocated segment goes on with zeros after them.
        let middle = ((bytes.lastIndex { $0 != 0 } ?? 0) + 1) / 2
        for k in middle..<(middle + 16) { bytes[k] ^= 0xFF }
        try bytes.write(to: damaged.appendingPathComponent(segment))
        let hurt = try await CLIRunner.run(["replay", regions, damaged.path])
        #expect(hurt.status == 3, "\(hurt.stderr) \(hurt.stdout.prefix(300))")
        #expect(hurt.stderr.contains(segment) && hurt.stderr.contains("at byte"), "\(hurt.stderr)")
        let partly = hurt.stderr.split(separator: "\n").first { $0.contains("fixes read") }.flatMap { Int($0.split(separator: " ").last!) } ?? 0
        #expect(partly > 0 && partly < fixCount, "the fixes before the damage, not all: \(hurt.stderr)")

        let inspect = try await CLIRunner.run(["journal", "inspect", journal])
        #expect(inspect.status == 0)
        #expect(inspect.stdout.contains("fixes        \(fixCount)"), "\(inspect.stdout)")
    }

    @Test func damageInsideTheJournalStopsTheExportWithFileAndOffset() async throws {
        let directory = try TestFolders.make("journal-damage")
        defer { try? FileManager.default.removeItem(at: directory) }
        let segment = directory.appendingPathComponent("00000000000000000000.journal")
        try Data("not a journal segment".utf8).write(to: segment)
        let r = try await CLIRunner.run(["journal", "export", directory.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains(segment.path), "\(r.stderr)")
    }
}
