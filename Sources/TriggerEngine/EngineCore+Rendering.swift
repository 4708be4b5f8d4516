import JSON

extension EngineCore {
    /// The SPEC §4 notification for a firing: templates filled in, defaults applied, a fresh `deliveryId`.
    static func render(_ c: CompiledRequest, device: String, event: FiredNotification.Event, at time: Timestamp,
                       ordinal: UInt32, evidence: Evidence?) -> FiredNotification {
        let r = c.request
        var fix: FixSnapshot?
        var beacon: BeaconSnapshot?
        switch evidence {
        case .fix(let f): fix = f
        case .beacon(let b): beacon = b
        case nil: break
        }
        let value: (ContentTemplate.Placeholder) -> String = { p in
            switch p {
            case .device: return device
            case .regionID: return r.trigger.region.id
            case .regionName: return r.trigger.region.name ?? r.trigger.region.id
            case .event: return event.rawValue
            case .fixTime: return fix?.timestamp.rfc3339 ?? beacon?.timestamp.rfc3339 ?? ""
            case .fixLatitude: return fix.map { Self.coordinateText($0.latitude) } ?? ""
            case .fixLongitude: return fix.map { Self.coordinateText($0.longitude) } ?? ""
            case .beaconProximity: return beacon?.proximity.rawValue ?? ""
            case .userInfo(let key):
                guard let v = r.content.userInfo[key] else { return "" }
                return v.stringValue ?? v.jsonText
            }
        }
        var content = r.content
        content.title = c.templates.title.render(value)
        content.subtitle = c.templates.subtitle.render(value)
        content.body = c.templates.body.render(value)
        content.threadIdentifier = c.templates.threadIdentifier?.render(value) ?? r.trigger.region.id
        content.summaryArgument = c.templates.summaryArgument?.render(value) ?? device
        return FiredNotification(
            identifier: r.identifier, deliveryId: deliveryId(c, device: device, at: time, ordinal: ordinal), content: content,
            event: event, repeats: r.trigger.repeats, regionType: r.trigger.region.typeName, regionID: r.trigger.region.id,
            regionName: r.trigger.region.name, device: device, fix: fix, beacon: beacon, firedAt: time)
    }

    /// `identifier/device/revision-TIME[-k]`: TIME is the firing's event time in Unix seconds (with the fraction
    /// when there is one), k the device's k-th notification at that exact time when k > 1. Built from the device's
    /// own timeline only, so it is the same however devices interleave or input is batched, and a restart or a
    /// replay of the same input gives the same ids.
    static func deliveryId(_ c: CompiledRequest, device: String, at time: Timestamp, ordinal: UInt32) -> String {
        let us = time.microseconds
        var seconds = us / 1_000_000
        var fraction = us % 1_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000 }
        var id = "\(c.request.identifier)/\(device)/\(c.revision)-\(seconds)"
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 6 - digits.count) + digits
            while digits.last == "0" { digits.removeLast() }
            id += "." + digits
        }
        if ordinal > 1 { id += "-\(ordinal)" }
        return id
    }

    static func coordinateText(_ v: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
