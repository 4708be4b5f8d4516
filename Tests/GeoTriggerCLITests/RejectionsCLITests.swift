import Foundation
import JSON
import TestSupport
import Testing

/// `--rejections FILE` on replay and convert: every refused record, with where it was and why, however many there are.
@Suite struct RejectionsCLITests {
    /// 30 unreadable rows (lines 3–32), then 12 fixes of which 5 are late, all after one good fix.
    static func trace() throws -> URL {
        var text = "device,timestamp,latitude,longitude\nv,2026-01-01T00:10:00Z,52.5,13.4\n"
        for k in 0..<30 { text += "v,2026-01-01T00:00:\(String(format: "%02d", k))Z,\(91 + k),13.4\n" }
        for k in 0..<12 {
            // Every other one of the first ten goes back in time (late); the two after are fine.
            let minute = k < 10 && k % 2 == 1 ? 5 : 11 + k
            text += "v,2026-01-01T00:\(String(format: "%02d", minute)):00Z,52.5,13.4\n"
        }
        let url = try TestFolders.make("rejections").appendingPathComponent("t.csv")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func lines(_ url: URL) throws -> [JSONValue] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    @Test func replayWritesEveryRefusedRecordAndSaysSo() async throws {
        let trace = try Self.trace()
        let out = trace.deletingLastPathComponent().appendingPathComponent("refused.ndjson")
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace.path, "--rejections", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let refused = try Self.lines(out)
        #expect(refused.count == 35)
        let unreadable = refused.filter { $0["line"] != nil }
        #expect(unreadable.map { $0["line"]?.doubleValue ?? 0 } == (3...32).map(Double.init))
        #expect(unreadable.allSatisfy { $0["field"]?.stringValue == "latitude" && $0["kind"]?.stringValue == "latitude-out-of-range" })
        let late = refused.filter { $0["kind"]?.stringValue == "late" }
        // Fix ordinals among the file's fixes: the good first fix is 1, the late ones 3, 5, 7, 9, 11.
        #expect(late.map { $0["fix"]?.doubleValue ?? 0 } == [3, 5, 7, 9, 11])
        #expect(late.allSatisfy { $0["timestamp"]?.stringValue == "2026-01-01T00:05:00Z" && $0["source"]?.stringValue == trace.path })
        #expect(r.stderr.contains("refused records    all 35 written to \(out.path)"))
        // Without the option: 20 listed, and the summary says how many were not.
        let plain = try await CLIRunner.run(["replay", "Data/demo-requests.json", trace.path])
        #expect(plain.stderr.split(separator: "\n").filter { $0.hasPrefix("rejected: ") }.count == 20)
        #expect(plain.stderr.contains("not listed         15 refused records (--rejections FILE writes every one)"))
    }

    @Test func convertWritesEveryRefusedRecord() async throws {
        let trace = try Self.trace()
        let out = trace.deletingLastPathComponent().appendingPathComponent("convert-refused.ndjson")
        let r = try await CLIRunner.run(["convert", trace.path, "--rejections", out.path, "-o", "/dev/null"])
        #expect(r.status == 0, "\(r.stderr)")
        // convert decodes without evaluating, so late fixes are converted; only the 30 unreadable rows are refused.
        #expect(try Self.lines(out).count == 30)
        #expect(r.stderr.contains("rejected 30 records (all written to \(out.path))"))
        let plain = try await CLIRunner.run(["convert", trace.path, "-o", "/dev/null"])
        #expect(plain.stderr.split(separator: "\n").filter { $0.hasPrefix("rejected: ") }.count == 20)
        #expect(plain.stderr.contains("(10 not listed: --rejections FILE writes every one)"))
    }
}
