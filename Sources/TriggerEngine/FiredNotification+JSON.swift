import JSON

extension FiredNotification {
    /// One compact JSON object in the SPEC §4 member order (no trailing newline).
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field("identifier", identifier)
        w.field("deliveryId", deliveryId)
        w.key("content")
        w.beginObject()
        w.field("title", content.title)
        w.field("subtitle", content.subtitle)
        w.field("body", content.body)
        if let badge = content.badge { w.field("badge", badge) }
        if let sound = content.sound { w.field("sound", sound) }
        w.field("categoryIdentifier", content.categoryIdentifier)
        w.field("threadIdentifier", content.threadIdentifier ?? regionID)
        w.field("summaryArgument", content.summaryArgument ?? device)
        w.key("userInfo")
        w.value(content.userInfo)
        w.endObject()
        w.key("trigger")
        w.beginObject()
        w.field("type", "location")
        w.field("event", event.rawValue)
        w.field("repeats", repeats)
        w.key("region")
        w.beginObject()
        w.field("type", regionType)
        w.field("id", regionID)
        if let regionName { w.field("name", regionName) }
        w.endObject()
        w.endObject()
        w.field("device", device)
        if let fix {
            w.key("fix")
            w.beginObject()
            w.key("timestamp")
            w.timestamp(fix.timestamp)
            w.field("latitude", fix.latitude)
            w.field("longitude", fix.longitude)
            if let a = fix.horizontalAccuracy { w.field("horizontalAccuracy", a) }
            w.endObject()
        }
        if let beacon {
            w.key("beacon")
            beacon.writeJSON(to: &w)
        }
        w.key("firedAt")
        w.timestamp(firedAt)
        w.endObject()
    }

    public var jsonLine: String {
        var w = JSONWriter()
        writeJSON(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension BeaconSnapshot {
    func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.key("timestamp")
        w.timestamp(timestamp)
        identity.writeFields(to: &w)
        if let rssi { w.field("rssi", rssi) }
        w.field("proximity", proximity.rawValue)
        if let distance { w.field("distance", (distance * 100).rounded() / 100) }
        if let address { w.field("address", address) }
        w.endObject()
    }
}

extension BeaconIdentity {
    /// The identity's members (`type`, then uuid/major/minor, id1–id3 or namespace/instance).
    public func writeFields(to w: inout JSONWriter) {
        w.field("type", kindName)
        switch self {
        case let .iBeacon(uuid, major, minor):
            w.field("uuid", uuid.description); w.field("major", Int(major)); w.field("minor", Int(minor))
        case let .altBeacon(id1, id2, id3):
            w.field("id1", id1.description); w.field("id2", Int(id2)); w.field("id3", Int(id3))
        case let .eddystoneUID(namespace, instance):
            w.field("namespace", namespace.description); w.field("instance", instance.description)
        }
    }
}
