import JSON

extension DeviceExplanation {
    /// The explanation as the HTTP API answers it (docs/why.md): one object, inputs oldest first.
    public func write(into w: inout JSONWriter) {
        w.beginObject()
        w.field("device", device)
        if let request { w.field("request", request) }
        w.field("recorded", recorded)
        w.key("omitted"); w.number(Int(clamping: omitted))
        w.key("inputs"); w.beginArray()
        for input in inputs { input.write(into: &w) }
        w.endArray()
        w.key("standing"); w.beginArray()
        for s in standing {
            w.beginObject()
            w.field("request", s.request)
            w.field("regionId", s.region)
            w.field("phase", s.phase)
            w.key("since"); w.timestamp(s.since)
            if let t = s.dwellUntil { w.key("dwellUntil"); w.timestamp(t) }
            if let t = s.quietUntil { w.key("quietUntil"); w.timestamp(t) }
            if let t = s.lastFired { w.key("lastFired"); w.timestamp(t) }
            w.endObject()
        }
        w.endArray()
        if let delivered {
            w.key("delivered"); w.beginObject()
            w.field("request", delivered.request.identifier)
            w.field("device", delivered.device)
            w.key("deliveredAt"); w.timestamp(delivered.deliveredAt)
            w.endObject()
        }
        w.endObject()
    }
}

extension ExplainedInput {
    func write(into w: inout JSONWriter) {
        w.beginObject()
        w.field("kind", kind.rawValue)
        w.key("time"); w.timestamp(time)
        if let latitude { w.field("latitude", latitude) }
        if let longitude { w.field("longitude", longitude) }
        if let horizontalAccuracy { w.field("horizontalAccuracy", horizontalAccuracy) }
        if let rssi { w.field("rssi", rssi) }
        if let refused {
            w.key("refused"); w.beginObject()
            w.field("reason", refused.rawValue)
            w.field("detail", refused.description)
            w.endObject()
        }
        w.key("decisions"); w.beginArray()
        for d in decisions {
            w.beginObject()
            w.field("request", d.request)
            if let region = d.region { w.field("regionId", region) }
            w.field("standing", d.standing.rawValue)
            if let v = d.distanceToEdge { w.field("distanceToEdge", (v * 100).rounded() / 100) }
            if let v = d.band { w.field("band", (v * 100).rounded() / 100) }
            w.field("outcome", d.outcome.rawValue)
            w.field("fired", d.fired)
            if let t = d.suppressedUntil { w.key("suppressedUntil"); w.timestamp(t) }
            if let t = d.dwellUntil { w.key("dwellUntil"); w.timestamp(t) }
            if d.delivered { w.field("delivered", true) }
            w.field("reason", d.reason)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }
}
