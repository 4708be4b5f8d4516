import Foundation
import TestSupport
import Testing

/// The `--report` page, rendered for real in headless Chromium (Debian's `chromium`, installed by Tools/test.sh).
@Suite(.enabled(if: CLIRunner.chromium != nil, "skipped: needs chromium (Tools/test.sh installs it)"))
struct ReplayReportTests {
    static func chrome(_ arguments: [String]) async throws -> (status: Int32, stdout: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLIRunner.chromium!)
        p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,1400"] + arguments
        let out = TestFolders.path("chrome")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let handle = try FileHandle(forWritingTo: out)
        p.standardOutput = handle
        p.standardError = FileHandle.nullDevice
        try p.run()
        await p.exited()
        try handle.close()
        return (p.terminationStatus, try String(contentsOf: out, encoding: .utf8))
    }

    @Test func reportRendersMapTimelineAndTable() async throws {
        let dir = try TestFolders.make("gt-report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.gpx", "--device-per-track", "--report", html])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        // Self-contained: no network fetches of any kind.
        #expect(!page.contains("http://") || !page.contains("src=\"http"))
        #expect(!page.contains("<script src") && !page.contains("<link"))

        // The DOM after Chromium has loaded it and run its script.
        let dom = try await Self.chrome(["--dump-dom", "file://" + html])
        #expect(dom.status == 0)
        func count(_ needle: String) -> Int { dom.stdout.components(separatedBy: needle).count - 1 }
        #expect(count("class=\"region\"") == 4)  // depot, loading bay, Mitte, Tempelhof (two requests share the depot)
        #expect(count("class=\"track\"") == 2)  // two trucks
        #expect(count("class=\"transition\"") == 10)  // one marker per notification
        #expect(count("<tr class=\"entry\"") + count("<tr class=\"exit\"") == 10)
        #expect(count("class=\"inside\"") >= 6)  // timeline intervals
        #expect(dom.stdout.contains("id=\"map\""))

        // And a real screenshot: a rendered page is far larger than a blank one.
        let png = dir.appendingPathComponent("report.png").path
        let shot = try await Self.chrome(["--screenshot=\(png)", "file://" + html])
        #expect(shot.status == 0)
        let size = (try FileManager.default.attributesOfItem(atPath: png)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 40_000, "screenshot is only \(size) bytes")
        let blank = dir.appendingPathComponent("blank.html").path
        try "<html><body></body></html>".write(toFile: blank, atomically: true, encoding: .utf8)
        let blankPNG = dir.appendingPathComponent("blank.png").path
        _ = try await Self.chrome(["--screenshot=\(blankPNG)", "file://" + blank])
        let blankSize = (try FileManager.default.attributesOfItem(atPath: blankPNG)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 4 * blankSize)
    }
}
