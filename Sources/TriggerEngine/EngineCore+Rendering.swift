extension EngineCore {
    /// The SPEC §4 notification for a firing: templates filled in, defaults applied, a fresh `deliveryId`.
    static func render(_ c: CompiledRequest, device: String, event: FiredNotification.Event, at time: Timestamp,
                evidence: Evidence?) -> FiredNotification {
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
            identifier: r.identifier, deliveryId: "\(r.identifier)/\(device)/\(c.revision)-\(c.firings)", content: content,
            event: event, repeats: r.trigger.repeats, regionType: r.trigger.region.typeName, regionID: r.trigger.region.id,
            regionName: r.trigger.region.name, device: device, fix: fix, beacon: beacon, firedAt: time)
    }

    static func coordinateText(_ v: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
