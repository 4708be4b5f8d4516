import JSON

extension FiredNotification {
    /// One compact JSON object in the SPEC §4 member order (no trailing newline). The shape is fixed, so each run
    /// of constant JSON between two values is one copy (`Output.notificationJSON` in Tools/micro-benchmarks; the
    /// general writer's per-member bookkeeping was most of its time).
    public func writeJSON(to w: inout JSONWriter) {
        w.rawValue { b in
            typealias J = JSONWriter
            J.appendLiteral("{\"identifier\":", to: &b)
            J.appendQuoted(identifier, to: &b)
            J.appendLiteral(",\"deliveryId\":", to: &b)
            J.appendQuoted(deliveryId, to: &b)
            J.appendLiteral(",\"content\":{\"title\":", to: &b)
            J.appendQuoted(content.title, to: &b)
            J.appendLiteral(",\"subtitle\":", to: &b)
            J.appendQuoted(content.subtitle, to: &b)
            J.appendLiteral(",\"body\":", to: &b)
            J.appendQuoted(content.body, to: &b)
            if let badge = content.badge {
                J.appendLiteral(",\"badge\":", to: &b)
                J.appendDecimal(Int64(badge), to: &b)
            }
            if let sound = content.sound {
                J.appendLiteral(",\"sound\":", to: &b)
                J.appendQuoted(sound, to: &b)
            }
            J.appendLiteral(",\"categoryIdentifier\":", to: &b)
            J.appendQuoted(content.categoryIdentifier, to: &b)
            J.appendLiteral(",\"threadIdentifier\":", to: &b)
            J.appendQuoted(content.threadIdentifier ?? regionID, to: &b)
            J.appendLiteral(",\"summaryArgument\":", to: &b)
            J.appendQuoted(content.summaryArgument ?? device, to: &b)
            J.appendLiteral(",\"userInfo\":", to: &b)
            // The general writer for userInfo, on the same bytes (swapped in and out: no copy, no second buffer).
            var nested = JSONWriter(appendingTo: [])
            swap(&nested.bytes, &b)
            nested.value(content.userInfo)
            swap(&nested.bytes, &b)
            switch event {
            case .entry: J.appendLiteral("},\"trigger\":{\"type\":\"location\",\"event\":\"entry\",\"repeats\":", to: &b)
            case .exit: J.appendLiteral("},\"trigger\":{\"type\":\"location\",\"event\":\"exit\",\"repeats\":", to: &b)
            }
            if repeats { J.appendLiteral("true", to: &b) } else { J.appendLiteral("false", to: &b) }
            J.appendLiteral(",\"region\":{\"type\":", to: &b)
            J.appendQuoted(regionType, to: &b)
            J.appendLiteral(",\"id\":", to: &b)
            J.appendQuoted(regionID, to: &b)
            if let regionName {
                J.appendLiteral(",\"name\":", to: &b)
                J.appendQuoted(regionName, to: &b)
            }
            J.appendLiteral("}},\"device\":", to: &b)
            J.appendQuoted(device, to: &b)
            if let fix {
                J.appendLiteral(",\"fix\":{\"timestamp\":\"", to: &b)
                fix.timestamp.appendRFC3339(to: &b)
                J.appendLiteral("\",\"latitude\":", to: &b)
                J.appendNumber(fix.latitude, to: &b)
                J.appendLiteral(",\"longitude\":", to: &b)
                J.appendNumber(fix.longitude, to: &b)
                if let a = fix.horizontalAccuracy {
                    J.appendLiteral(",\"horizontalAccuracy\":", to: &b)
                    J.appendNumber(a, to: &b)
                }
                J.appendLiteral("}", to: &b)
            }
            if let beacon {
                J.appendLiteral(",\"beacon\":", to: &b)
                var nested = JSONWriter(appendingTo: [])
                swap(&nested.bytes, &b)
                beacon.writeJSON(to: &nested)
                swap(&nested.bytes, &b)
            }
            J.appendLiteral(",\"firedAt\":\"", to: &b)
            firedAt.appendRFC3339(to: &b)
            J.appendLiteral("\"}", to: &b)
        }
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
