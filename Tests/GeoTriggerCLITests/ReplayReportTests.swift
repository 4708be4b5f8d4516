import Foundation
import TestSupport
import Testing

/// The `--report` page, rendered for real in headless Chromium (Debian's `chromium`, installed by Tools/test.sh):
/// the assertions read the DOM after the page's script has drawn it.
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

    /// The page's DOM once loaded and drawn (`#n=K` selects transition K).
    static func dom(_ html: String, fragment: String = "") async throws -> String {
        let dom = try await chrome(["--dump-dom", "file://" + html + fragment])
        #expect(dom.status == 0)
        return dom.stdout
    }

    /// The element `<tag id="id"…>…</tag>` as the script filled it in, without the script's own text.
    static func element(_ tag: String, _ id: String, in dom: String) -> String {
        guard let start = dom.range(of: "<\(tag) id=\"\(id)\""), let end = dom.range(of: "</\(tag)>", range: start.upperBound..<dom.endIndex)
        else { return "" }
        return String(dom[start.lowerBound..<end.upperBound])
    }

    /// The map's drawing.
    static func overlay(_ dom: String) -> String { element("svg", "overlay", in: dom) }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Every value of `attribute` on elements of `cls` in `svg`.
    static func values(of attribute: String, class cls: String, in svg: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "<[a-z]+ class=\"\(cls)\"[^>]*? \(attribute)=\"([^\"]*)\"")
        return pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { String(svg[Range($0.range(at: 1), in: svg)!]) }
    }

    /// `#map`'s `data-…` attributes.
    static func map(_ dom: String) -> [String: String] {
        guard let tag = dom.range(of: "<div id=\"map\"[^>]*>", options: .regularExpression) else { return [:] }
        let pattern = try! NSRegularExpression(pattern: "data-([a-z-]+)=\"([^\"]*)\"")
        let text = String(dom[tag])
        var out: [String: String] = [:]
        for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            out[String(text[Range(m.range(at: 1), in: text)!])] = String(text[Range(m.range(at: 2), in: text)!])
        }
        return out
    }

    @Test func tracksHaveAColourEachWithStartAndEndMarksOverNamedRegions() async throws {
        let dir = try TestFolders.make("gt-report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.gpx", "--device-per-track", "--report", html])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("report: \(html) ("))
        let page = try String(contentsOfFile: html, encoding: .utf8)
        // Self-contained: no scripts, styles or images from anywhere.
        #expect(!page.contains("<script src") && !page.contains("<link") && !page.contains("src=\"http") && !page.contains("url("))

        let dom = try await Self.dom(html)
        #expect(Self.map(dom)["state"] == "rendered")
        let svg = Self.overlay(dom)
        // Two trucks, each its own colour, each with a start and an end mark in its colour.
        let colours = Self.values(of: "stroke", class: "track", in: svg)
        #expect(colours.count == 2)
        #expect(Set(colours).count == 2, "\(colours)")
        #expect(Set(Self.values(of: "data-device", class: "track", in: svg)) == ["truck-12", "truck-13"])
        #expect(Set(Self.values(of: "fill", class: "start", in: svg)) == Set(colours))
        #expect(Set(Self.values(of: "fill", class: "end", in: svg)) == Set(colours))
        // Regions by the names users gave them (two requests share the depot: four regions drawn).
        #expect(Self.count("data-region=", in: svg) == 4)
        #expect(svg.contains(">Mitte</text>") && svg.contains(">Tempelhofer Feld</text>"))
        #expect(!svg.contains(">mitte</text>"))
        // The background: the bundled outlines, no tiles.
        #expect(Self.count("class=\"land\"", in: svg) == 1)
        #expect(dom.contains("<div id=\"tiles\"></div>"))
        #expect(Self.count("class=\"transition\"", in: svg) == 10)  // one marker per notification
        #expect(Self.count("<tr class=\"entry", in: dom) + Self.count("<tr class=\"exit", in: dom) == 10)
        #expect(Self.count("<rect class=\"inside\"", in: Self.element("svg", "timeline", in: dom)) >= 6)  // timeline intervals

        // And a real screenshot: a rendered page is far larger than a blank one.
        let png = dir.appendingPathComponent("report.png").path
        let shot = try await Self.chrome(["--screenshot=\(png)", "file://" + html])
        #expect(shot.status == 0)
        let size = (try FileManager.default.attributesOfItem(atPath: png)[.size] as? NSNumber)?.intValue ?? 0
        let blank = dir.appendingPathComponent("blank.html").path
        try "<html><body></body></html>".write(toFile: blank, atomically: true, encoding: .utf8)
        let blankPNG = dir.appendingPathComponent("blank.png").path
        _ = try await Self.chrome(["--screenshot=\(blankPNG)", "file://" + blank])
        let blankSize = (try FileManager.default.attributesOfItem(atPath: blankPNG)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 4 * blankSize, "screenshot \(size) bytes, blank \(blankSize)")
    }

    @Test func theFirstViewFitsTheTracksNotARegionOnAnotherContinent() async throws {
        let dir = try TestFolders.make("gt-report-far")
        defer { try? FileManager.default.removeItem(at: dir) }
        var requests = try JSONSerialization.jsonObject(with: Data(contentsOf: CLIRunner.packageRoot.appendingPathComponent("Data/demo-requests.json"))) as! [Any]
        requests.append([
            "identifier": "sydney-office", "content": ["title": "Sydney", "body": "{device}"],
            "trigger": ["region": ["type": "circle", "id": "sydney", "name": "Sydney Office",
                                   "center": ["latitude": -33.86, "longitude": 151.21], "radius": 500]],
        ])
        let regions = dir.appendingPathComponent("regions.json").path
        try JSONSerialization.data(withJSONObject: requests).write(to: URL(fileURLWithPath: regions))
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", regions, "Data/demo-drive.gpx", "--device-per-track", "--report", html])
        #expect(r.status == 0, "\(r.stderr)")

        // The tracks' extent, from the trace itself.
        let gpx = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("Data/demo-drive.gpx"), encoding: .utf8)
        let point = try NSRegularExpression(pattern: "<trkpt lat=\"([-0-9.]+)\" lon=\"([-0-9.]+)\"")
        var lats: [Double] = [], lons: [Double] = []
        for m in point.matches(in: gpx, range: NSRange(gpx.startIndex..., in: gpx)) {
            lats.append(Double(gpx[Range(m.range(at: 1), in: gpx)!])!)
            lons.append(Double(gpx[Range(m.range(at: 2), in: gpx)!])!)
        }
        #expect(lats.count == 323)

        let dom = try await Self.dom(html)
        let view = (Self.map(dom)["view"] ?? "").split(separator: ",").compactMap { Double($0) }
        try #require(view.count == 4, "data-view: \(Self.map(dom))")
        let (south, west, north, east) = (view[0], view[1], view[2], view[3])
        #expect(south <= lats.min()! && north >= lats.max()! && west <= lons.min()! && east >= lons.max()!, "\(view)")
        // Fitted to the tracks (about 0.1 degree across), not stretched to Sydney.
        #expect(east - west < 1 && north - south < 1, "\(view)")
        #expect(!Self.overlay(dom).contains("data-region=\"sydney\""))
        #expect(dom.contains("Sydney Office"))  // still in the page's data
    }

    /// Polygons near the tracks keep every vertex (to 1e-5 degree); one far from every track and transition is
    /// written on the coarse 0.001-degree grid, since it is only ever seen zoomed out.
    @Test func polygonsAwayFromTheTracksAreWrittenCoarsely() async throws {
        let dir = try TestFolders.make("gt-report-polygons")
        defer { try? FileManager.default.removeItem(at: dir) }
        func polygon(_ id: String, _ lat: Double, _ lon: Double) -> [String: Any] {
            let ring = (0...12).map { k -> [Double] in
                let a = Double(k % 12) / 12 * 2 * .pi
                return [lon + 0.012345 * cos(a), lat + 0.007891 * sin(a)]
            }
            return ["identifier": id, "content": ["title": id, "body": "{device}"],
                    "trigger": ["region": ["type": "polygon", "id": id, "geometry": ["type": "Polygon", "coordinates": [ring]]]]]
        }
        let regions = dir.appendingPathComponent("regions.json").path
        try JSONSerialization.data(withJSONObject: [polygon("near", 52.52, 13.40), polygon("far", -33.86, 151.21)])
            .write(to: URL(fileURLWithPath: regions))
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", regions, "Data/demo-drive.gpx", "--device-per-track", "--report", html])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        let start = try #require(page.range(of: "<script type=\"application/json\" id=\"report-data\">"))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let data = try #require(try JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
        let written = try #require(data["regions"] as? [[Any]])
        /// A ring's absolute vertices in 1e-5 degree (written as a first vertex, then differences).
        func vertices(_ id: String) -> [(Int, Int)] {
            guard let region = written.first(where: { $0.first as? String == id }), let ring = region.last as? [Int] else { return [] }
            var out: [(Int, Int)] = [], lat = 0, lon = 0
            for k in stride(from: 0, to: ring.count - 1, by: 2) {
                lat += ring[k]; lon += ring[k + 1]
                out.append((lat, lon))
            }
            return out
        }
        let near = vertices("near"), far = vertices("far")
        #expect(near.count == 13 && far.count >= 4, "near \(near.count), far \(far.count)")
        #expect(near.contains { $0.0 % 100 != 0 || $0.1 % 100 != 0 })  // full detail
        #expect(far.allSatisfy { $0.0 % 100 == 0 && $0.1 % 100 == 0 }, "\(far)")  // on the 0.001-degree grid
        #expect(far.contains { abs(Double($0.0) / 1e5 - -33.86) < 0.002 && abs(Double($0.1) / 1e5 - 151.2223) < 0.002 }, "\(far)")
    }

    @Test func theExplainPanelShowsTheFixItsAccuracyTheDwellAndTheFixesRefusedNearIt() async throws {
        let dir = try TestFolders.make("gt-report-explain")
        defer { try? FileManager.default.removeItem(at: dir) }
        let regions = dir.appendingPathComponent("regions.json").path
        try #"""
            [{"identifier": "harbour-watch", "content": {"title": "{event} harbour", "body": "{device}"},
              "trigger": {"region": {"type": "circle", "id": "harbour", "name": "Harbour Basin",
                                     "center": {"latitude": 54.0, "longitude": 10.0}, "radius": 200},
                          "notifyOnEntry": true, "notifyOnExit": true, "repeats": true}}]
            """#.write(toFile: regions, atomically: true, encoding: .utf8)
        // 2026-01-01T00:00:00Z; boat-1 comes in at 00:01 (accuracy 7.5 m) and leaves at 00:05. Its fix at 00:01 is
        // sent twice (a duplicate), then one from 00:00:30 arrives (late).
        let t0 = 1_767_225_600
        func fix(_ s: Int, _ lat: Double, _ acc: Double) -> String {
            #"{"device":"boat-1","timestamp":\#(t0 + s),"latitude":\#(lat),"longitude":10.0,"horizontalAccuracy":\#(acc)}"#
        }
        let trace = dir.appendingPathComponent("trace.ndjson").path
        try [fix(0, 54.01, 5), fix(60, 54.0, 7.5), fix(60, 54.0, 7.5), fix(30, 54.005, 20), fix(120, 54.0001, 12),
             fix(240, 54.0, 5), fix(300, 54.02, 9)].joined(separator: "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", regions, trace, "--report", html])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 2, "\(r.stdout)")

        let entry = try await Self.dom(html, fragment: "#n=0")
        let explain = Self.element("aside", "explain", in: entry)
        #expect(explain.contains("Entry into Harbour Basin"), "\(explain)")
        #expect(explain.contains("harbour-watch") && explain.contains("boat-1"))
        #expect(explain.contains("2026-01-01T00:01:00Z at 54.00000, 10.00000"))
        #expect(explain.contains("<dd id=\"explain-accuracy\">± 7.5 m</dd>"), "\(explain)")
        #expect(explain.contains("200.0 m inside the circle's edge"))
        #expect(explain.contains("none: the entry fires on the first fix inside"))
        // The two refused fixes, nearest first, with their reasons.
        #expect(Self.values(of: "data-reason", class: "refused-near", in: explain) == ["duplicate", "late"], "\(explain)")
        #expect(explain.contains("2026-01-01T00:00:30Z (−30 s): <b>late</b>"))

        let exit = try await Self.dom(html, fragment: "#n=1")
        let explainExit = Self.element("aside", "explain", in: exit)
        #expect(explainExit.contains("Exit from Harbour Basin"), "\(explainExit)")
        #expect(explainExit.contains("inside for 4 min 0 s, since the entry at 2026-01-01T00:01:00Z"))
        #expect(explainExit.contains("<dd id=\"explain-accuracy\">± 9 m</dd>"))
        // Both refused fixes are within 10 minutes of the exit's fix too, four minutes and more before it.
        #expect(explainExit.contains("(−4 min 0 s): <b>duplicate</b>") && explainExit.contains("(−4 min 30 s): <b>late</b>"))
        // The refused fixes per device, with reasons.
        #expect(Self.count("<tr class=\"refused\" data-reason=\"duplicate\"", in: exit) == 1)
        #expect(Self.count("<tr class=\"refused\" data-reason=\"late\"", in: exit) == 1)
        #expect(exit.contains("In all: 1 late, 1 duplicate."))
    }

    @Test func withTilesTheMapLoadsThemFromTheChosenServer() async throws {
        let server = try TileServer()
        defer { server.stop() }
        let dir = try TestFolders.make("gt-report-tiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let html = dir.appendingPathComponent("report.html").path
        let template = "http://127.0.0.1:\(server.port)/tiles/{z}/{x}/{y}.png"
        let r = try await CLIRunner.run(["replay", "Data/demo-requests.json", "Data/demo-drive.gpx", "--device-per-track",
                                         "--report", html, "--tiles", template, "--tiles-attribution", "© Test Tiles"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(server.requested.isEmpty)  // writing the page fetches nothing

        let dom = try await Self.dom(html)
        let zoom = try #require(Double(Self.map(dom)["zoom"] ?? ""))
        let z = Int(zoom.rounded())
        // The tiles over Berlin at the page's zoom, from this server.
        let n = Double(1 << z)
        let x = Int((13.4 + 180) / 360 * n), y = Int((1 - log(tan(52.5 * .pi / 180) + 1 / cos(52.5 * .pi / 180)) / .pi) / 2 * n)
        let requested = server.requested
        #expect(requested.contains("/tiles/\(z)/\(x)/\(y).png"), "\(requested)")
        #expect(requested.allSatisfy { $0.hasPrefix("/tiles/\(z)/") }, "\(requested)")
        #expect(dom.contains("© Test Tiles"))
        #expect(Self.count("class=\"land\"", in: Self.overlay(dom)) == 0)  // the tiles replace the outlines
    }

    /// A notification-dense workload (10,000 circles on a grid, 100 vehicles wandering through them): the page stays
    /// small per fix, its first view draws decimated tracks, and Chromium finishes drawing it. The full-size run
    /// (457,000 fixes) is Tools/bench/report_scale.py.
    @Test func aDenseWorkloadGivesASmallPageThatRenders() async throws {
        let dir = try TestFolders.make("gt-report-dense")
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SplitMix(seed: 47)
        let lat0 = 53.5, lon0 = 9.9, mLat = 111_320.0, mLon = 111_320.0 * cos(53.5 * .pi / 180)
        var regions = "["
        for i in 0..<10_000 {
            let north = Double(i / 100) * 400 + rng.double(-50, 50), east = Double(i % 100) * 400 + rng.double(-50, 50)
            regions += (i == 0 ? "" : ",") + #"{"identifier":"r\#(i)","content":{"title":"{event}","body":"{device}"},"trigger":{"repeats":true,"region":{"type":"circle","id":"c\#(i)","name":"Stop \#(i)","center":{"latitude":\#(lat0 + north / mLat),"longitude":\#(lon0 + east / mLon)},"radius":120}}}"#
        }
        try (regions + "]").write(toFile: dir.appendingPathComponent("regions.json").path, atomically: true, encoding: .utf8)
        let devices = 100, ticks = 500
        var position = (0..<devices).map { _ in (rng.double(0, 40_000), rng.double(0, 40_000), rng.double(0, 2 * .pi)) }
        var trace = ""
        trace.reserveCapacity(devices * ticks * 110)
        for t in 0..<ticks {
            for d in 0..<devices {
                var (n, e, heading) = position[d]
                heading += rng.double(-0.4, 0.4)
                let step = rng.double(20, 60)
                n = min(40_000, max(0, n + step * cos(heading)))
                e = min(40_000, max(0, e + step * sin(heading)))
                position[d] = (n, e, heading)
                trace += #"{"device":"v\#(d)","timestamp":\#(1_760_000_000 + t * 10),"latitude":\#(lat0 + n / mLat),"longitude":\#(lon0 + e / mLon),"horizontalAccuracy":10}"# + "\n"
            }
        }
        try trace.write(toFile: dir.appendingPathComponent("trace.ndjson").path, atomically: true, encoding: .utf8)
        let html = dir.appendingPathComponent("report.html").path
        let r = try await CLIRunner.run(["replay", dir.appendingPathComponent("regions.json").path,
                                         dir.appendingPathComponent("trace.ndjson").path, "-o", dir.appendingPathComponent("n.ndjson").path,
                                         "--report", html])
        #expect(r.status == 0, "\(r.stderr)")
        let fixes = devices * ticks
        let notifications = try String(contentsOf: dir.appendingPathComponent("n.ndjson"), encoding: .utf8).split(separator: "\n").count
        #expect(notifications > fixes / 20, "not dense: \(notifications) notifications")
        let size = (try FileManager.default.attributesOfItem(atPath: html)[.size] as? NSNumber)?.intValue ?? 0
        // 25 MB for 457,000 fixes is 54 bytes a fix, notifications and regions included.
        #expect(size <= fixes * 54, "\(size) bytes for \(fixes) fixes")
        print("dense report: \(fixes) fixes, 10000 circles, \(notifications) notifications: \(size) bytes")

        let started = ContinuousClock.now
        let dom = try await Self.dom(html)
        print("dense report: chromium --dump-dom took \((ContinuousClock.now - started).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))")
        let map = Self.map(dom)
        #expect(map["state"] == "rendered", "\(map)")
        print("dense report: the page's first drawing was done \(map["first-draw-ms"] ?? "?") ms after navigation started")
        // The first view shows every track, decimated: far fewer points than fixes.
        let svg = Self.overlay(dom)
        let tracks = Self.values(of: "points", class: "track", in: svg)
        #expect(tracks.count == devices)
        let points = tracks.reduce(0) { $0 + $1.split(separator: " ").count }
        #expect(map["level"] != "99" && points < fixes / 2, "level \(map["level"] ?? "?"): \(points) points drawn")
        #expect(Self.count("class=\"transition\"", in: svg) <= 3000)
    }
}
