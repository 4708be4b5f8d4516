import Foundation
import JSON
import TestSupport
import Testing

/// `replay` with proximity requests: groups defined in the region file, a trace grouped by device decided in event
/// time, and the report listing the pairs.
@Suite struct ProximityCLITests {
    @Test func replayDecidesPairsInEventTimeWhateverTheFileOrder() async throws {
        let folder = try TestFolders.make("proximity-cli")
        let regions = folder.appendingPathComponent("regions.json")
        try #"""
            {"groups": {"crew": ["phone"]},
             "requests": [{"identifier": "near", "content": {"title": "{device} near {nearby.device}"},
                           "trigger": {"repeats": true, "region": {"type": "proximity", "id": "crew-100", "radius": 100,
                                                                    "targets": {"group": "crew"}}}}]}
            """#.write(to: regions, atomically: true, encoding: .utf8)
        // Grouped by device, the van first: its fix near the phone at 00:02 is decided after the phone's at 00:01.
        let trace = folder.appendingPathComponent("t.csv")
        try """
            device,timestamp,latitude,longitude
            van,2026-01-01T00:00:00Z,52.5,13.41
            van,2026-01-01T00:02:00Z,52.5,13.4005
            van,2026-01-01T00:04:00Z,52.5,13.41
            phone,2026-01-01T00:01:00Z,52.5,13.4
            """.write(to: trace, atomically: true, encoding: .utf8)
        let report = folder.appendingPathComponent("r.html")
        let r = try await CLIRunner.run(["replay", regions.path, trace.path, "--report", report.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.lines.map { try JSONParser.parse($0) }
        #expect(lines.map { "\($0["device"]?.stringValue ?? "") \($0["trigger"]?["event"]?.stringValue ?? "") \($0["nearby"]?["device"]?.stringValue ?? "")" }
            == ["van entry phone", "van exit phone"])
        #expect(lines.first?["content"]?["title"]?.stringValue == "van near phone")
        #expect(lines.first?["nearby"]?["distance"]?.doubleValue.map { abs($0 - 34) < 1 } == true, "\(lines.first?.jsonText ?? "")")
        let html = try String(contentsOf: report, encoding: .utf8)
        // Two proximity transitions, each naming the other device (index 1: the phone, first seen after the van).
        #expect(html.contains(#""pairs":[0,1,"#) && html.contains(#"<th>near</th>"#))
    }

    @Test func aGroupsFileWithAnUnknownFieldIsRefusedWithItsPath() async throws {
        let folder = try TestFolders.make("proximity-cli")
        let regions = folder.appendingPathComponent("regions.json")
        try #"{"groups": {"crew": "phone"}, "requests": []}"#.write(to: regions, atomically: true, encoding: .utf8)
        let trace = folder.appendingPathComponent("t.csv")
        try "device,timestamp,latitude,longitude\nvan,2026-01-01T00:00:00Z,52.5,13.41\n".write(to: trace, atomically: true, encoding: .utf8)
        let r = try await CLIRunner.run(["replay", regions.path, trace.path])
        #expect(r.status != 0)
        #expect(r.stderr.contains("groups.crew: expected an array of device ids"), "\(r.stderr)")
    }
}
