import JSON

extension FiredNotification {
    /// One compact JSON object in the SPEC §4 member order (no trailing newline).
    public func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field(literal: "identifier", identifier)
        w.field(literal: "deliveryId", deliveryId)
        w.key(literal: "content")
        w.beginObject()
        w.field(literal: "title", content.title)
        w.field(literal: "subtitle", content.subtitle)
        w.field(literal: "body", content.body)
        if let badge = content.badge { w.field(literal: "badge", badge) }
        if let sound = content.sound { w.field(literal: "sound", sound) }
        w.field(literal: "categoryIdentifier", content.categoryIdentifier)
        w.field(literal: "threadIdentifier", content.threadIdentifier ?? regionID)
        w.field(literal: "summaryArgument", content.summaryArgument ?? device)
        w.key(literal: "userInfo")
        w.value(content.userInfo)
        w.endObject()
        w.key(literal: "trigger")
        w.beginObject()
        w.field(literal: "type", "location")
        w.field(literal: "event", event.rawValue)
        w.field(literal: "repeats", repeats)
        w.key(literal: "region")
        w.beginObject()
        w.field(literal: "type", regionType)
        w.field(literal: "id", regionID)
        if let regionName { w.field(literal: "name", regionName) }
        w.endObject()
        w.endObject()
        w.field(literal: "device", device)
        if let fix {
            w.key(literal: "fix")
            w.beginObject()
            w.key(literal: "timestamp")
            w.timestamp(fix.timestamp)
            w.field(literal: "latitude", fix.latitude)
            w.field(literal: "longitude", fix.longitude)
            if let a = fix.horizontalAccuracy { w.field(literal: "horizontalAccuracy", a) }
            w.endObject()
        }
        if let beacon {
            w.key(literal: "beacon")
            beacon.writeJSON(to: &w)
        }
        w.key(literal: "firedAt")
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
        w.key(literal: "timestamp")
        w.timestamp(timestamp)
        identity.writeFields(to: &w)
        if let rssi { w.field(literal: "rssi", rssi) }
        w.field(literal: "proximity", proximity.rawValue)
        if let distance { w.field(literal: "distance", hundredths: distance) }
        if let address { w.field(literal: "address", address) }
        w.endObject()
    }
}

extension BeaconIdentity {
    /// The identity's members (`type`, then uuid/major/minor, id1–id3 or namespace/instance).
    public func writeFields(to w: inout JSONWriter) {
        w.field(literal: "type", kindName)
        // Hex text straight into the writer's bytes (it never needs escaping): no String per sighting.
        func quoted(_ append: (inout [UInt8]) -> Void) {
            w.rawValue { out in
                out.append(UInt8(ascii: "\""))
                append(&out)
                out.append(UInt8(ascii: "\""))
            }
        }
        switch self {
        case let .iBeacon(uuid, major, minor):
            w.key(literal: "uuid"); quoted(uuid.appendText); w.field(literal: "major", Int(major)); w.field(literal: "minor", Int(minor))
        case let .altBeacon(id1, id2, id3):
            w.key(literal: "id1"); quoted(id1.appendText); w.field(literal: "id2", Int(id2)); w.field(literal: "id3", Int(id3))
        case let .eddystoneUID(namespace, instance):
            w.key(literal: "namespace"); quoted(namespace.appendText)
            w.key(literal: "instance"); quoted(instance.appendText)
        }
    }
}
