#if canImport(Glibc)
import Glibc
#endif
import Geometry
import TriggerEngine

/// Renders the report's HTML: map (SVG, equirectangular scaled at the mean latitude), timeline and table.
struct ReportPage {
    let title: String
    let requests: [NotificationRequest]
    let deviceOrder: [String]
    let tracks: [String: [(Timestamp, Double, Double)]]
    let intervals: [ReplayReport.Interval]
    let notifications: [FiredNotification]
    let first: Timestamp
    let last: Timestamp

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]

    func render() -> String {
        // Bounds over tracks and geofences.
        var minLat = 90.0, maxLat = -90.0, minLon = 180.0, maxLon = -180.0
        func grow(_ lat: Double, _ lon: Double) {
            minLat = min(minLat, lat); maxLat = max(maxLat, lat); minLon = min(minLon, lon); maxLon = max(maxLon, lon)
        }
        for t in tracks.values { for p in t { grow(p.1, p.2) } }
        for r in requests {
            switch r.trigger.region.shape {
            case let .circle(c, radius):
                for b in BoundingBox.covering(center: c, radius: radius) { grow(b.minLatitude, b.minLongitude); grow(b.maxLatitude, b.maxLongitude) }
            case let .polygon(set):
                for p in set.polygons { for ring in p { for c in ring { grow(c.latitude, c.longitude) } } }
            case .beacon: break
            }
        }
        if minLat > maxLat { minLat = 0; maxLat = 1; minLon = 0; maxLon = 1 }
        let midLat = (minLat + maxLat) / 2
        let k = cos(midLat * .pi / 180)
        let width = 1000.0
        let spanX = max(1e-9, (maxLon - minLon) * k), spanY = max(1e-9, maxLat - minLat)
        let scale = width / max(spanX, spanY)
        func x(_ lon: Double) -> Double { ((lon - minLon) * k * scale * 100).rounded() / 100 }
        func y(_ lat: Double) -> Double { ((maxLat - lat) * scale * 100).rounded() / 100 }
        let height = (spanY * scale).rounded(.up)

        var svg = ""
        var regionIndex: [String: Int] = [:]
        for r in requests where regionIndex[r.trigger.region.id] == nil {
            regionIndex[r.trigger.region.id] = regionIndex.count
        }
        func color(_ region: String) -> String { Self.palette[(regionIndex[region] ?? 0) % Self.palette.count] }
        var drawn = Set<String>()
        for r in requests where !drawn.contains(r.trigger.region.id) {
            drawn.insert(r.trigger.region.id)
            let id = esc(r.trigger.region.id), name = esc(r.trigger.region.name ?? r.trigger.region.id), c = color(r.trigger.region.id)
            switch r.trigger.region.shape {
            case let .circle(center, radius):
                let rx = Geodesy.longitudeDegrees(spanning: radius, atLatitude: center.latitude) / 1.000_001 * k * scale
                let ry = Geodesy.latitudeDegrees(spanning: radius) / 1.000_001 * scale
                svg += "<ellipse class=\"region\" data-region=\"\(id)\" cx=\"\(x(center.longitude))\" cy=\"\(y(center.latitude))\" rx=\"\(fmt(rx))\" ry=\"\(fmt(ry))\" fill=\"\(c)\" fill-opacity=\"0.18\" stroke=\"\(c)\"><title>\(name) (circle, \(fmt(radius)) m)</title></ellipse>\n"
            case let .polygon(set):
                var d = ""
                for p in set.polygons {
                    for ring in p {
                        for (i, pt) in ring.enumerated() { d += (i == 0 ? "M" : "L") + "\(x(pt.longitude)) \(y(pt.latitude))" }
                        d += "Z"
                    }
                }
                svg += "<path class=\"region\" data-region=\"\(id)\" d=\"\(d)\" fill=\"\(c)\" fill-opacity=\"0.18\" fill-rule=\"evenodd\" stroke=\"\(c)\"><title>\(name) (polygon)</title></path>\n"
            case .beacon:
                break
            }
        }
        for (i, device) in deviceOrder.enumerated() {
            guard let t = tracks[device], !t.isEmpty else { continue }
            let pts = t.map { "\(x($0.2)),\(y($0.1))" }.joined(separator: " ")
            svg += "<polyline class=\"track\" data-device=\"\(esc(device))\" points=\"\(pts)\" fill=\"none\" stroke=\"#333\" stroke-opacity=\"0.7\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\" stroke-dasharray=\"\(i % 2 == 0 ? "none" : "4 2")\"><title>\(esc(device))</title></polyline>\n"
        }
        for n in notifications {
            guard let f = n.fix else { continue }
            let c = n.event == .entry ? "#2ca02c" : "#d62728"
            svg += "<circle class=\"transition\" data-event=\"\(n.event.rawValue)\" cx=\"\(x(f.longitude))\" cy=\"\(y(f.latitude))\" r=\"5\" fill=\"\(c)\" stroke=\"white\" vector-effect=\"non-scaling-stroke\"><title>\(n.event.rawValue) \(esc(n.identifier)) — \(esc(n.device)) at \(n.firedAt.rfc3339)</title></circle>\n"
        }

        // Timeline.
        let t0 = first == .distantFuture ? Timestamp(microseconds: 0) : first
        let t1 = last > t0 ? last : Timestamp(microseconds: t0.microseconds + 1)
        let tw = 1000.0, rowH = 22.0, left = 140.0
        func tx(_ t: Timestamp) -> Double { left + fmtD(Double(t.microseconds - t0.microseconds) / Double(t1.microseconds - t0.microseconds) * tw) }
        var timeline = ""
        for (i, device) in deviceOrder.enumerated() {
            let ry = Double(i) * rowH + 20
            timeline += "<text x=\"0\" y=\"\(ry + 14)\" font-size=\"12\">\(esc(device))</text>"
            timeline += "<rect x=\"\(left)\" y=\"\(ry + 2)\" width=\"\(tw)\" height=\"\(rowH - 6)\" fill=\"#f2f2f2\"/>"
            for iv in intervals where iv.device == device {
                let a = tx(max(iv.start, t0)), b = tx(iv.end ?? t1)
                timeline += "<rect class=\"inside\" data-device=\"\(esc(device))\" x=\"\(a)\" y=\"\(ry + 2)\" width=\"\(fmtD(max(1, b - a)))\" height=\"\(rowH - 6)\" fill=\"\(color(iv.region))\" fill-opacity=\"0.6\"><title>\(esc(device)) inside \(esc(iv.region)) (\(esc(iv.identifier))) \(iv.start.rfc3339) – \(iv.end?.rfc3339 ?? "end")</title></rect>"
            }
            for n in notifications where n.device == device {
                timeline += "<line x1=\"\(tx(n.firedAt))\" x2=\"\(tx(n.firedAt))\" y1=\"\(ry)\" y2=\"\(ry + rowH - 2)\" stroke=\"\(n.event == .entry ? "#2ca02c" : "#d62728")\" stroke-width=\"2\"><title>\(n.event.rawValue) \(esc(n.identifier)) \(n.firedAt.rfc3339)</title></line>"
            }
        }
        timeline += "<text x=\"\(left)\" y=\"12\" font-size=\"11\">\(t0.rfc3339)</text><text x=\"\(left + tw)\" y=\"12\" font-size=\"11\" text-anchor=\"end\">\(t1.rfc3339)</text>"
        let timelineHeight = Double(deviceOrder.count) * rowH + 30

        var rows = ""
        for n in notifications {
            rows += "<tr class=\"\(n.event.rawValue)\"><td>\(n.firedAt.rfc3339)</td><td>\(esc(n.device))</td><td>\(n.event.rawValue)</td><td>\(esc(n.identifier))</td><td>\(esc(n.regionID))</td><td>\(esc(n.content.title))</td><td>\(esc(n.deliveryId))</td></tr>\n"
        }
        let legend = regionIndex.sorted { $0.value < $1.value }.map {
            "<span class=\"swatch\" style=\"background:\(Self.palette[$0.value % Self.palette.count])\"></span>\(esc($0.key))"
        }.joined(separator: " ")

        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(esc(title))</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:16px;color:#222}
            h1{font-size:20px} h2{font-size:16px;margin-top:24px}
            #map{width:100%;height:560px;border:1px solid #ccc;background:#fbfbf8;cursor:grab;touch-action:none}
            table{border-collapse:collapse;font-size:12px} td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}
            tr.entry td:nth-child(3){color:#2ca02c} tr.exit td:nth-child(3){color:#d62728}
            .swatch{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;opacity:.7}
            .note{color:#666;font-size:12px}
            </style></head><body>
            <h1>\(esc(title))</h1>
            <p class="note">\(Self.counted(requests.count, "request")), \(Self.counted(deviceOrder.count, "device")), \(Self.counted(notifications.count, "notification")), \(t0.rfc3339) – \(t1.rfc3339). Drag to pan, scroll to zoom, double-click to reset.</p>
            <div>\(legend)</div>
            <svg id="map" viewBox="0 0 \(fmt(width)) \(fmt(height))" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
            \(svg)</svg>
            <h2>Timeline: inside intervals and notifications per device</h2>
            <svg id="timeline" width="\(fmt(left + tw + 10))" height="\(fmt(timelineHeight))" xmlns="http://www.w3.org/2000/svg">\(timeline)</svg>
            <h2>Notifications</h2>
            <table id="notifications"><thead><tr><th>fired at</th><th>device</th><th>event</th><th>request</th><th>region</th><th>title</th><th>deliveryId</th></tr></thead>
            <tbody>
            \(rows)</tbody></table>
            <script>
            (function(){
              var svg=document.getElementById('map'); var vb=svg.viewBox.baseVal; var home=[vb.x,vb.y,vb.width,vb.height];
              function pt(e){var r=svg.getBoundingClientRect();return [vb.x+(e.clientX-r.left)/r.width*vb.width, vb.y+(e.clientY-r.top)/r.height*vb.height];}
              svg.addEventListener('wheel',function(e){e.preventDefault();var p=pt(e);var f=e.deltaY<0?0.8:1.25;
                vb.x=p[0]-(p[0]-vb.x)*f;vb.y=p[1]-(p[1]-vb.y)*f;vb.width*=f;vb.height*=f;},{passive:false});
              var drag=null;
              svg.addEventListener('pointerdown',function(e){drag=[e.clientX,e.clientY,vb.x,vb.y];svg.setPointerCapture(e.pointerId);});
              svg.addEventListener('pointermove',function(e){if(!drag)return;var r=svg.getBoundingClientRect();
                vb.x=drag[2]-(e.clientX-drag[0])/r.width*vb.width;vb.y=drag[3]-(e.clientY-drag[1])/r.height*vb.height;});
              svg.addEventListener('pointerup',function(){drag=null;});
              svg.addEventListener('dblclick',function(){vb.x=home[0];vb.y=home[1];vb.width=home[2];vb.height=home[3];});
            })();
            </script>
            </body></html>

            """
    }

    func fmt(_ v: Double) -> String { String(Int(v.rounded())) }
    func fmtD(_ v: Double) -> Double { (v * 100).rounded() / 100 }

    func esc(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension ReportPage {
    /// `1 device`, `2 devices`.
    static func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
