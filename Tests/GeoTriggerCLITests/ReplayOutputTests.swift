import Foundation
import JSON
import TestSupport
import Testing
import TriggerEngine

/// `replay` renders and writes its notifications on a thread of its own (`NotificationWriterThread`), handed over a
/// batch of fixes at a time through a bounded queue. Over a trace where every fix fires and that spans many more
/// batches than the queue holds, the output is byte for byte, in order, what the engine fires in process, to a file
/// and to standard output alike, and the summary counts every notification.
@Suite struct ReplayOutputTests {
    @Test func everyNotificationIsWrittenOnceInFiringOrder() async throws {
        let dir = try TestFolders.make("replay-output")
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = """
            [{"identifier": "a", "content": {"title": "{device} {event} {region.id}"},
              "trigger": {"repeats": true, "region": {"type": "circle", "id": "ca", "center": {"latitude": 52.52, "longitude": 13.40}, "radius": 200}}},
             {"identifier": "b", "content": {"title": "{device} {event} {region.id}"},
              "trigger": {"repeats": true, "region": {"type": "circle", "id": "cb", "center": {"latitude": 52.52, "longitude": 13.40}, "radius": 300}}}]
            """
        let regions = dir.appendingPathComponent("regions.json").path
        try requests.write(toFile: regions, atomically: true, encoding: .utf8)
        // 64 devices, each in and out of both circles on every fix: 2 notifications per fix, 12 batches of 4,096
        // fixes (the writer's queue holds 8).
        var fixes: [LocationFix] = []
        for step in 0..<768 {
            for d in 0..<64 {
                fixes.append(LocationFix(device: "dev-\(d)", timestamp: Timestamp(microseconds: Int64(1_800_000_000 + step) * 1_000_000 + Int64(d)),
                                         latitude: step % 2 == 0 ? 52.52 : 52.53, longitude: 13.40, horizontalAccuracy: 5))
            }
        }
        let trace = dir.appendingPathComponent("trace.ndjson").path
        var w = JSONWriter()
        for fix in fixes {
            fix.writeJSON(to: &w)
            w.bytes.append(10)
        }
        try Data(w.bytes).write(to: URL(fileURLWithPath: trace))

        let engine = TriggerEngine(configuration: TriggerEngine.Configuration(clock: .eventTime))
        try engine.add(contentsOf: RequestDecoder().decodeRegionFile(JSONParser.parse(Array(requests.utf8))))
        var fired: [FiredNotification] = []
        for fix in fixes { engine.process(fix) { fired.append($0) } }
        engine.finish { fired.append($0) }
        let expected = fired.map(\.jsonLine)
        #expect(expected.count >= 2 * (fixes.count - 64))
        let cbEntries = fired.filter { $0.regionID == "cb" && $0.event == .entry }.count
        let cbExits = fired.filter { $0.regionID == "cb" && $0.event == .exit }.count

        let output = dir.appendingPathComponent("out.ndjson").path
        let toFile = try await CLIRunner.run(["replay", regions, trace, "--output", output])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(Self.firstDifference(written, expected) == nil, "the file differs from the engine's firing order")
        #expect(toFile.stderr.contains("notifications      \(expected.count)\n"), "\(toFile.stderr)")
        #expect(toFile.stderr.contains("cb: \(cbEntries) entry, \(cbExits) exit notifications"), "\(toFile.stderr)")

        let toStandardOutput = try await CLIRunner.run(["replay", regions, trace])
        #expect(toStandardOutput.status == 0)
        #expect(Self.firstDifference(toStandardOutput.lines, expected) == nil, "standard output differs from the engine's firing order")
    }

    /// Where two outputs part (a line number from 1, with both lines), or nil when they are equal; comparing the
    /// arrays in the expectation itself would print both whole.
    static func firstDifference(_ got: [String], _ expected: [String]) -> String? {
        guard let k = (0..<max(got.count, expected.count)).first(where: { $0 >= got.count || $0 >= expected.count || got[$0] != expected[$0] })
        else { return nil }
        return "line \(k + 1) of \(got.count) (expected \(expected.count)): \(k < got.count ? got[k] : "nothing") instead of \(k < expected.count ? expected[k] : "nothing")"
    }
}
