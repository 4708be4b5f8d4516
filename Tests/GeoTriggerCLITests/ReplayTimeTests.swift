import Foundation
import TestSupport
import Testing

/// `replay` with per-device time: a file grouped by device, several files, or any interleaving of the devices'
/// fixes give the same notifications as one file sorted by time, without `--sort-by-time`.
@Suite struct ReplayTimeTests {
    @Test(arguments: [3, 11])
    func unsortedAndSeveralFilesGiveTheSortedReplay(seed: Int) async throws {
        let scenario = TimeScenario(seed: UInt64(seed), devices: 12, beacons: false)
        let dir = try TestFolders.make("replay-time")
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ inputs: [TimeScenario.Input]) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try (inputs.map(\.jsonLine).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let regions = dir.appendingPathComponent("regions.json").path
        try scenario.requestsJSON.write(toFile: regions, atomically: true, encoding: .utf8)
        func replay(_ files: [String]) async throws -> [String] {
            let r = try await CLIRunner.run(["replay", regions] + files)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("records rejected   0"), "\(r.stderr)")
            return r.lines.compactMap(TimeScenario.key(jsonLine:)).sorted()
        }
        let sorted = try await replay([try write("sorted.ndjson", scenario.sorted)])
        #expect(sorted.count > 20)
        #expect(sorted == (try scenario.run(scenario.sorted, lateness: nil)))
        let grouped = try await replay([try write("grouped.ndjson", scenario.streams.flatMap { $0 })])
        #expect(TimeScenario.difference(grouped, sorted) == nil)
        // Three files, each a random interleaving of a third of the devices.
        let shuffled = scenario.interleaved(seed: UInt64(seed) &+ 9, maxDisorder: nil)
        let files = try (0..<3).map { k in
            try write("part-\(k).ndjson", shuffled.filter { Int($0.device.split(separator: "-").last!)! % 3 == k })
        }
        let several = try await replay(files)
        #expect(TimeScenario.difference(several, sorted) == nil)
    }

    /// The issue's reproduction on the real bus trace (rows grouped by vehicle, time jumping back at each vehicle):
    /// a 60 s dwell at the Petherick Road terminus. Before per-device time the grouped file gave 4 arrivals and
    /// "dwells cancelled 6" (the next vehicle's fixes ran the global clock), the sorted one 10.
    @Test(.enabled(if: CLIRunner.sharedDataAvailable, "skipped: needs ../shared/data (traces/route14_outbound.csv)"))
    func busTraceGroupedByVehicleCompletesEveryDwell() async throws {
        let dir = try TestFolders.make("replay-bus")
        defer { try? FileManager.default.removeItem(at: dir) }
        let regions = dir.appendingPathComponent("terminus.json").path
        try #"[{"identifier":"terminus-dwell","content":{"title":"{device} at the terminus"},"trigger":{"region":{"type":"circle","id":"petherick-road","center":{"latitude":53.4619,"longitude":-2.8950},"radius":150},"repeats":true,"dwell":60,"notifyOnExit":false}}]"#
            .write(toFile: regions, atomically: true, encoding: .utf8)
        let trace = CLIRunner.sharedData.appendingPathComponent("traces/route14_outbound.csv").path
        let grouped = try await CLIRunner.run(["replay", regions, trace])
        let sorted = try await CLIRunner.run(["replay", regions, trace, "--sort-by-time"])
        #expect(grouped.status == 0 && sorted.status == 0, "\(grouped.stderr)")
        #expect(grouped.lines.count == 10)
        #expect(!grouped.stderr.contains("dwells cancelled"), "\(grouped.stderr)")
        #expect(grouped.lines.compactMap(TimeScenario.key(jsonLine:)).sorted() == sorted.lines.compactMap(TimeScenario.key(jsonLine:)).sorted())
    }

    @Test func farFutureFixIsRejectedAndTheDeviceGoesOn() async throws {
        let dir = try TestFolders.make("replay-future")
        defer { try? FileManager.default.removeItem(at: dir) }
        let regions = dir.appendingPathComponent("regions.json").path
        try #"[{"identifier":"c","trigger":{"region":{"type":"circle","id":"c","center":{"latitude":0,"longitude":0},"radius":100},"repeats":true}}]"#
            .write(toFile: regions, atomically: true, encoding: .utf8)
        let trace = dir.appendingPathComponent("t.ndjson").path
        try """
            {"device":"d","timestamp":"2026-11-20T08:00:00Z","latitude":1,"longitude":1}
            {"device":"d","timestamp":"9999-12-31T23:59:59Z","latitude":0,"longitude":0}
            {"device":"d","timestamp":"2026-11-20T08:00:10Z","latitude":0,"longitude":0}
            """.write(toFile: trace, atomically: true, encoding: .utf8)
        let r = try await CLIRunner.run(["replay", regions, trace])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("future"), "\(r.stderr)")
        // The real fix after it is not late: the entry fires.
        #expect(r.lines.count == 1)
        #expect(r.lines.first?.contains(#""event":"entry""#) == true)
    }
}
