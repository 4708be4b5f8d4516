extension FiredNotification.Firing {
    /// Every field of the notification: templates filled in, defaults applied.
    var rendered: FiredNotification.Fields {
        let r = compiled.request
        return .init(identifier: r.identifier, deliveryId: deliveryId, content: content, event: event,
                     repeats: r.trigger.repeats, regionType: compiled.regionTypeName, regionID: r.trigger.region.id,
                     regionName: r.trigger.region.name, device: device, fix: fix, beacon: beacon, nearby: nearby, firedAt: firedAt)
    }

    var deliveryId: String {
        EngineCore.deliveryId(identifier: plan.identifier, device: device, revision: plan.revision,
                              at: firedAt, ordinal: ordinal)
    }

    /// The request's content with its templates filled in (threadIdentifier defaults to the region id,
    /// summaryArgument to the device).
    var content: NotificationContent {
        let t = compiled.templates
        var content = compiled.request.content
        content.title = t.title.render(placeholderText)
        content.subtitle = t.subtitle.render(placeholderText)
        content.body = t.body.render(placeholderText)
        content.threadIdentifier = t.threadIdentifier?.render(placeholderText) ?? compiled.request.trigger.region.id
        content.summaryArgument = t.summaryArgument?.render(placeholderText) ?? device
        return content
    }

    /// A placeholder's text (SPEC §1): empty when the firing has no such evidence.
    func placeholderText(_ p: ContentTemplate.Placeholder) -> String {
        let region = compiled.request.trigger.region
        switch p {
        case .device: return device
        case .regionID: return region.id
        case .regionName: return region.name ?? region.id
        case .event: return event.rawValue
        case .fixTime: return (fix?.timestamp ?? beacon?.timestamp)?.rfc3339 ?? ""
        case .fixLatitude: return fix.map { EngineCore.coordinateText($0.latitude) } ?? ""
        case .fixLongitude: return fix.map { EngineCore.coordinateText($0.longitude) } ?? ""
        case .beaconProximity: return beacon?.proximity.rawValue ?? ""
        case .nearbyDevice: return nearby?.device ?? ""
        case .nearbyDistance: return nearby.map { Self.distanceText($0.distance) } ?? ""
        case .userInfo: return Self.userInfoText(p, of: compiled)
        }
    }

    /// Whole metres: what a message says ("120 m"), where the JSON's `nearby.distance` keeps centimetres.
    static func distanceText(_ metres: Double) -> String { String(Int64(metres.rounded())) }

    /// A `{userInfo.KEY}` placeholder's text: the value's string, or its JSON when it is not a string.
    static func userInfoText(_ p: ContentTemplate.Placeholder, of c: CompiledRequest) -> String {
        guard case .userInfo(let key) = p, let v = c.request.content.userInfo[key] else { return "" }
        return v.stringValue ?? v.jsonText
    }
}
