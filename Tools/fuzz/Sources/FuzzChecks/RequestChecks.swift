import JSON
import Geometry
import TriggerEngine

/// SPEC §1: what every accepted request satisfies, whichever way it was written.
public func checkRequest(_ r: NotificationRequest) {
    invariant(!r.identifier.isEmpty, "request accepted without an identifier")
    let t = r.trigger
    invariant(!t.region.id.isEmpty, "\(r.identifier): region without an id")
    invariant(t.notifyOnEntry || t.notifyOnExit, "\(r.identifier): neither entry nor exit notifies")
    for (name, v) in [("dwell", t.dwell), ("hysteresis", t.hysteresis), ("minimumInterval", t.minimumInterval)] {
        invariant(v.isFinite && v >= 0, "\(r.identifier): \(name) is \(v)")
    }
    if let m = t.maximumAccuracy { invariant(m.isFinite && m > 0, "\(r.identifier): maximumAccuracy is \(m)") }
    invariant(t.exitTimeout.isFinite && t.exitTimeout > 0, "\(r.identifier): exitTimeout is \(t.exitTimeout)")
    if let devices = t.devices {
        invariant(!devices.isEmpty && !devices.contains(""), "\(r.identifier): devices \(devices)")
    }
    if let badge = r.content.badge { invariant(badge >= 0, "\(r.identifier): badge \(badge)") }
    switch t.region.shape {
    case let .circle(center, radius):
        invariant(center.latitude.isFinite && abs(center.latitude) <= 90, "\(r.identifier): centre \(center)")
        invariant(center.longitude.isFinite && abs(center.longitude) <= 180, "\(r.identifier): centre \(center)")
        invariant(radius.isFinite && radius > 0 && radius <= 5_000_000, "\(r.identifier): radius \(radius)")
    case .polygon(let set):
        checkPolygons(set, r.identifier)
    case .beacon:
        break
    case .proximity(let p):
        invariant(p.radius.isFinite && p.radius > 0 && p.radius <= 100_000, "\(r.identifier): proximity radius \(p.radius)")
        invariant(p.maxAge.isFinite && p.maxAge > 0, "\(r.identifier): proximity maxAge \(p.maxAge)")
        for selector in [p.targets] + (p.subjects.map { [$0] } ?? []) {
            switch selector {
            case .devices(let ids):
                invariant(!ids.isEmpty && !ids.contains(""), "\(r.identifier): proximity devices \(ids)")
            case .group(let name):
                invariant(RequestDecoder.isGroupName(name), "\(r.identifier): proximity group \(name)")
            }
        }
    }
}

/// What `GEOSContext.validatedPolygons` promises: at least one polygon, each with rings of ≥ 4 closed positions,
/// all finite and within [-90, 90] × [-180, 180] (antimeridian crossings already split).
func checkPolygons(_ set: PolygonSet, _ identifier: String) {
    invariant(!set.polygons.isEmpty, "\(identifier): a polygon region with no polygons")
    for polygon in set.polygons {
        invariant(!polygon.isEmpty, "\(identifier): a polygon with no rings")
        for ring in polygon {
            invariant(ring.count >= 4, "\(identifier): a ring of \(ring.count) positions")
            invariant(ring.first == ring.last, "\(identifier): an open ring")
            for c in ring {
                invariant(c.latitude.isFinite && abs(c.latitude) <= 90 && c.longitude.isFinite && abs(c.longitude) <= 180,
                          "\(identifier): position \(c) out of range")
            }
        }
    }
}

/// `jsonText` is how the server re-serialises JSON it parsed (array bodies, stored requests): parsing it again must
/// give the same value. Non-finite numbers (`1e999` overflows) are written as `null` by design, so values holding one
/// are not compared.
public func checkJSONRoundTrip(_ value: JSONValue) {
    guard allNumbersFinite(value) else { return }
    let text = value.jsonText
    do {
        let again = try JSONParser.parse(text)
        invariant(again == value && again.jsonText == text, "JSON round trip changed the value: \(text.prefix(200))")
    } catch {
        invariant(false, "jsonText is not JSON the parser reads (\(error)): \(text.prefix(200))")
    }
}

public func allNumbersFinite(_ v: JSONValue) -> Bool {
    switch v {
    case .number(let d): d.isFinite
    case .array(let items): items.allSatisfy(allNumbersFinite)
    case .object(let members): members.allSatisfy { allNumbersFinite($0.value) }
    default: true
    }
}
