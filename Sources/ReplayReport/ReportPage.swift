import Geometry
import TriggerEngine

/// Writes the report's HTML: the data as JSON in the page (tracks per zoom level, regions, transitions, refused
/// fixes), the bundled world outlines, and the script (`ReportScript`) that draws the map, explain panel, timeline
/// and tables from it in the browser. All inline: the page fetches nothing unless the user chose a tile server.
struct ReportPage {
    let report: ReplayReport
    let title: String
    let tiles: ReplayReport.Tiles?

    /// Regions away from every track and transition are still drawn, but their polygons on this grid (degrees): they
    /// are seen only zoomed out, where finer detail is below a pixel.
    static let coarseGrid = 0.001

    var origin: Timestamp { report.first == .distantFuture ? Timestamp(microseconds: 0) : report.first }

    /// `t` in milliseconds from the first fix; a refused fix's timestamp may be anywhere, so no overflow traps.
    func milliseconds(_ t: Timestamp) -> Int {
        let (d, overflow) = t.microseconds.subtractingReportingOverflow(origin.microseconds)
        return overflow ? (d < 0 ? Int.max / 1000 : Int.min / 1000) : Int(d / 1000)
    }

    /// A finite or not, large or not, value as a whole number for the page: the request and fix fields are checked
    /// but not bounded.
    static func whole(_ v: Double) -> Int { v.isFinite ? Int(max(-1e15, min(1e15, v)).rounded()) : -1 }

    func render() -> [UInt8] {
        let levels = TrackLevels(tracks: report.tracks)
        var out = ReportBytes(capacity: 1 << 20)
        out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
        out.html(title)
        out.append("</title>\n<style>\(ReportScript.css)</style></head><body>\n<h1>")
        out.html(title)
        out.append("</h1>\n<p class=\"note\" id=\"summary\">")
        let accepted = report.acceptedFixes
        let refused = report.refusalCounts.values.reduce(0, +)
        out.html("\(Self.counted(report.requests.count, "request")), \(Self.counted(report.devices.count, "device")), "
            + "\(Self.counted(accepted, "fix")) accepted, \(Self.counted(refused, "fix")) refused, "
            + "\(Self.counted(report.transitions.count, "notification")), \(origin.rfc3339) – "
            + "\((report.last == .distantPast ? origin : report.last).rfc3339).")
        out.append(" Drag to pan, scroll to zoom, double-click to fit the tracks again; select a transition (a dot on the map or a row below) to see why it fired.</p>\n")
        out.append(ReportScript.body)
        out.append("<script type=\"application/json\" id=\"report-data\">")
        writeData(&out, levels: levels)
        out.append("</script>\n<script type=\"application/json\" id=\"world-data\">")
        out.bytes.append(contentsOf: PackageResources.world_outlines_json.filter { $0 != UInt8(ascii: "\n") })
        out.append("</script>\n<script>\(ReportScript.script)</script>\n</body></html>\n")
        return out.bytes
    }

    func writeData(_ out: inout ReportBytes, levels: TrackLevels) {
        out.append("{\"t0\":")
        out.append(Int(origin.microseconds / 1000))
        out.append(",\"t1\":")
        out.append(milliseconds(report.last == .distantPast ? origin : report.last))
        out.append(",\"bounds\":")
        let box = trackBounds()
        if let box {
            out.append("[")
            out.append(box.south); out.comma(); out.append(box.west); out.comma()
            out.append(box.north); out.comma(); out.append(box.east); out.append("]")
        } else {
            out.append("null")
        }
        out.append(",\"tiles\":")
        if let tiles {
            out.append("{\"url\":"); out.json(tiles.template)
            out.append(",\"attribution\":"); out.json(tiles.attribution ?? "")
            out.append("}")
        } else {
            out.append("null")
        }
        out.append(",\"devices\":[")
        var first = true
        for d in report.devices { out.comma(&first); out.json(d) }
        // Each device's first and last accepted fix: the start and end marks, and their times.
        out.append("],\"ends\":[")
        first = true
        for t in report.tracks {
            out.comma(&first)
            guard let a = t.latitudes.first, let b = t.longitudes.first else { out.append("null"); continue }
            out.append("["); out.append(a); out.comma(); out.append(b); out.comma()
            out.append(t.latitudes[t.latitudes.count - 1]); out.comma(); out.append(t.longitudes[t.longitudes.count - 1])
            out.comma(); out.append(milliseconds(t.first)); out.comma(); out.append(milliseconds(t.last)); out.append("]")
        }
        out.append("],\"levels\":[")
        first = true
        for zoom in levels.zooms {
            out.comma(&first)
            out.append("{\"z\":"); out.append(zoom); out.append(",\"t\":[")
            var firstTrack = true
            for (k, t) in report.tracks.enumerated() {
                out.comma(&firstTrack)
                out.append("[")
                var previous: (Int32, Int32) = (0, 0), firstPoint = true
                levels.forEachKept(track: k, zoom: zoom) { i in
                    out.comma(&firstPoint)
                    let p = (t.latitudes[i], t.longitudes[i])
                    out.append(p.0 - previous.0); out.comma(); out.append(p.1 - previous.1)
                    previous = p
                }
                out.append("]")
            }
            out.append("]}")
        }
        out.append("]")
        writeRegions(&out, near: box)
        writeTransitions(&out)
        writePairs(&out)
        writeRefusals(&out)
        out.append("}")
    }

    /// The accepted fixes' extent: the first view fits it, not the regions (one far away would shrink the tracks
    /// to a dot).
    func trackBounds() -> (south: Int32, west: Int32, north: Int32, east: Int32)? {
        var south = Int32.max, west = Int32.max, north = Int32.min, east = Int32.min
        for t in report.tracks {
            for lat in t.latitudes { south = min(south, lat); north = max(north, lat) }
            for lon in t.longitudes { west = min(west, lon); east = max(east, lon) }
        }
        return south <= north ? (south, west, north, east) : nil
    }

    func writeRegions(_ out: inout ReportBytes, near box: (south: Int32, west: Int32, north: Int32, east: Int32)?) {
        // Requests: [identifier, region index, dwell seconds, fires on entry, fires on exit].
        var regionIndex: [String: Int] = [:]
        var regions: [(region: Region, label: String)] = []
        for r in report.requests where regionIndex[r.trigger.region.id] == nil {
            regionIndex[r.trigger.region.id] = regions.count
            regions.append((r.trigger.region, r.trigger.region.name ?? r.identifier))
        }
        let regionOfRequest = report.requests.map { regionIndex[$0.trigger.region.id] ?? -1 }
        var touched = Set<Int>()
        for t in report.transitions { touched.insert(regionOfRequest[Int(t.request)]) }
        out.append(",\"requests\":[")
        var first = true
        for r in report.requests {
            out.comma(&first)
            out.append("["); out.json(r.identifier); out.comma(); out.append(regionIndex[r.trigger.region.id] ?? 0)
            out.comma(); out.append(Self.whole(r.trigger.dwell)); out.append(r.trigger.notifyOnEntry ? ",1" : ",0")
            out.append(r.trigger.notifyOnExit ? ",1]" : ",0]")
        }
        // Regions: [id, name, "c", latitude, longitude, radius metres] or [id, name, "p", rings…], coordinates in
        // 1e-5 degree, each ring's first vertex then differences.
        out.append("],\"regions\":[")
        first = true
        let margin: Int32 = 10_000  // 0.1 degree around the tracks
        for (k, entry) in regions.enumerated() {
            out.comma(&first)
            out.append("["); out.json(entry.region.id); out.comma(); out.json(entry.label)
            switch entry.region.shape {
            case let .circle(center, radius):
                out.append(",\"c\","); out.append(ReplayReport.quantised(center.latitude)); out.comma()
                out.append(ReplayReport.quantised(center.longitude)); out.comma(); out.append(Self.whole(radius))
            case let .polygon(set):
                var near = touched.contains(k)
                if !near, let box {
                    for p in set.polygons { for ring in p { for c in ring {
                        let lat = ReplayReport.quantised(c.latitude), lon = ReplayReport.quantised(c.longitude)
                        if lat >= box.south - margin, lat <= box.north + margin, lon >= box.west - margin, lon <= box.east + margin { near = true }
                    } } }
                }
                let grid: Int32 = near ? 1 : Int32(Self.coarseGrid * 100_000)
                out.append(",\"p\"")
                for p in set.polygons {
                    for ring in p {
                        out.append(",[")
                        var previous: (Int32, Int32) = (0, 0), firstPoint = true, last: (Int32, Int32)?
                        for c in ring {
                            let q = (ReplayReport.quantised(c.latitude) / grid * grid, ReplayReport.quantised(c.longitude) / grid * grid)
                            if let last, last == q { continue }
                            last = q
                            out.comma(&firstPoint)
                            out.append(q.0 - previous.0); out.comma(); out.append(q.1 - previous.1)
                            previous = q
                        }
                        out.append("]")
                    }
                }
            case .beacon:
                out.append(",\"b\"")
            case let .proximity(p):
                // Moves with other devices: no place on the map, only its radius for the panel.
                out.append(",\"m\","); out.append(Self.whole(p.radius))
            }
            out.append("]")
        }
        out.append("]")
    }

    /// Transitions, eight integers each: device, request, 1 for an entry, fired at (ms after the previous
    /// transition's), the fix's latitude and longitude (1e-5 degree, as differences from the previous transition's
    /// fix; null without a fix), its accuracy in decimetres (-1 when not given), and how long before the firing its
    /// fix was taken (ms). Differences, because most of a large page is transitions and neighbours are close.
    func writeTransitions(_ out: inout ReportBytes) {
        out.append(",\"transitions\":[")
        var first = true
        var previousTime = 0, previousLatitude: Int32 = 0, previousLongitude: Int32 = 0
        for t in report.transitions {
            out.comma(&first)
            out.append(t.device); out.comma(); out.append(t.request); out.append(t.entry ? ",1," : ",0,")
            let firedAt = milliseconds(t.firedAt)
            out.append(firedAt &- previousTime)
            previousTime = firedAt
            if let f = t.fix {
                let lat = ReplayReport.quantised(f.latitude), lon = ReplayReport.quantised(f.longitude)
                out.comma(); out.append(lat &- previousLatitude); out.comma(); out.append(lon &- previousLongitude)
                out.comma(); out.append(f.horizontalAccuracy.map { Self.whole($0 * 10) } ?? -1)
                out.comma(); out.append(firedAt &- milliseconds(f.timestamp))
                (previousLatitude, previousLongitude) = (lat, lon)
            } else {
                out.append(",null,null,-1,null")
            }
        }
        out.append("]")
    }

    /// Proximity transitions, three integers each: the transition's index, the other device, the distance in
    /// centimetres.
    func writePairs(_ out: inout ReportBytes) {
        out.append(",\"pairs\":[")
        var first = true
        for p in report.pairs {
            out.comma(&first)
            out.append(p.transition); out.comma(); out.append(p.other); out.comma(); out.append(Self.whole(p.distance * 100))
        }
        out.append("]")
    }

    /// Refused fixes, five values each: device, time (ms from t0), latitude and longitude (null when unusable),
    /// reason index; then the reasons and how many of each there were in all.
    func writeRefusals(_ out: inout ReportBytes) {
        let reasons = FixRejection.allCases
        out.append(",\"refused\":[")
        var first = true
        for r in report.refusals {
            out.comma(&first)
            out.append(r.device); out.comma(); out.append(milliseconds(r.timestamp)); out.comma()
            if r.latitude == .min { out.append("null,null,") } else {
                out.append(r.latitude); out.comma(); out.append(r.longitude); out.comma()
            }
            out.append(reasons.firstIndex(of: r.reason) ?? 0)
        }
        out.append("],\"reasons\":[")
        first = true
        for reason in reasons {
            out.comma(&first)
            out.append("["); out.json(reason.rawValue); out.comma(); out.json(reason.description); out.comma()
            out.append(report.refusalCounts[reason] ?? 0); out.append("]")
        }
        out.append("]")
    }

    /// `1 device`, `2 devices`; `1 fix`, `2 fixes`.
    static func counted(_ n: Int, _ noun: String) -> String {
        n == 1 ? "1 \(noun)" : "\(n) \(noun)\(noun.hasSuffix("x") ? "es" : "s")"
    }
}
