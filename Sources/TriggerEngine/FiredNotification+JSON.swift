import JSON

extension FiredNotification {
    /// One compact JSON object in the SPEC §4 member order (no trailing newline). A notification from the engine
    /// is written straight from its firing through a `JSONCursor` (`Output.notificationJSON` in
    /// Tools/micro-benchmarks): on the stack when it fits in 1 KiB (most do: ~500 bytes), else in a 64 KiB heap
    /// buffer. One built field by field, or larger still, goes through the array writer. All give the same bytes
    /// (FiringJSONTests).
    public func writeJSON(to w: inout JSONWriter) {
        if case .firing(let g) = storage {
            if g.fitsOnTheStack, w.appendThroughCursor({ g.writeJSON(to: &$0) }) { return }
            if w.appendThroughCursor(capacity: 1 << 16, { g.writeJSON(to: &$0) }) { return }
        }
        fields.writeJSON(to: &w)
    }

    public var jsonLine: String {
        if case .firing(let g) = storage, g.fitsOnTheStack,
           let line = JSONWriter.stringThroughCursor({ g.writeJSON(to: &$0) }) {
            return line
        }
        var w = JSONWriter()
        writeJSON(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension FiredNotification.Firing {
    /// Whether the stack buffer is worth trying: a request whose constant text alone nears its size would only fail
    /// there first.
    var fitsOnTheStack: Bool {
        plan.program.count + (nearby.map { 256 + 6 * $0.device.utf8.count } ?? 0) < JSONWriter.stackCapacity - 256
    }

    /// The notification's JSON from the firing, through its request's `NotificationPlan`: no String built for the
    /// templates or the deliveryId. The bytes equal `rendered`'s (`Fields.writeJSON`).
    func writeJSON(to o: inout JSONCursor) {
        let timeCapacity = Timestamp.rfc3339Capacity, numberCapacity = JSONCursor.numberCapacity
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: timeCapacity + 2 * numberCapacity) { scratch in
            let time = scratch.baseAddress!, latitude = time + timeCapacity, longitude = latitude + numberCapacity
            var texts = NotificationPlan.Texts(firedAt: .init(start: time, count: firedAt.writeRFC3339(into: time)),
                                               latitude: .init(start: latitude, count: 0), longitude: .init(start: longitude, count: 0))
            if let fix {
                texts.latitude = .init(start: latitude, count: JSONCursor.writeNumber(fix.latitude, into: latitude))
                texts.longitude = .init(start: longitude, count: JSONCursor.writeNumber(fix.longitude, into: longitude))
            }
            plan.write(self, texts, to: &o)
        }
    }
}

extension FiredNotification.Fields {
    /// The notification's JSON from its fields. The shape is fixed, so each run of constant JSON between two
    /// values is one copy (the general writer's per-member bookkeeping was most of its time).
    func writeJSON(to w: inout JSONWriter) {
        w.rawValue { b in
            typealias J = JSONWriter
            // A member whose name (with the constant JSON before it) is known when compiling, then its value.
            func text(_ before: StaticString, _ value: String) { J.appendLiteral(before, to: &b); J.appendQuoted(value, to: &b) }
            func number(_ before: StaticString, _ value: Double) { J.appendLiteral(before, to: &b); J.appendNumber(value, to: &b) }
            func time(_ before: StaticString, _ value: Timestamp) {
                J.appendLiteral(before, to: &b)
                value.appendRFC3339(to: &b)
                J.appendLiteral("\"", to: &b)
            }
            // A value through the general writer, on the same bytes (swapped in and out: no copy, no second buffer).
            func general(_ before: StaticString, _ write: (inout JSONWriter) -> Void) {
                J.appendLiteral(before, to: &b)
                var nested = JSONWriter(appendingTo: [])
                swap(&nested.bytes, &b)
                write(&nested)
                swap(&nested.bytes, &b)
            }
            text("{\"identifier\":", identifier)
            text(",\"deliveryId\":", deliveryId)
            text(",\"content\":{\"title\":", content.title)
            text(",\"subtitle\":", content.subtitle)
            text(",\"body\":", content.body)
            if let badge = content.badge {
                J.appendLiteral(",\"badge\":", to: &b)
                J.appendDecimal(Int64(badge), to: &b)
            }
            if let sound = content.sound { text(",\"sound\":", sound) }
            text(",\"categoryIdentifier\":", content.categoryIdentifier)
            text(",\"threadIdentifier\":", content.threadIdentifier ?? regionID)
            text(",\"summaryArgument\":", content.summaryArgument ?? device)
            general(",\"userInfo\":") { $0.value(content.userInfo) }
            switch event {
            case .entry: J.appendLiteral("},\"trigger\":{\"type\":\"location\",\"event\":\"entry\",\"repeats\":", to: &b)
            case .exit: J.appendLiteral("},\"trigger\":{\"type\":\"location\",\"event\":\"exit\",\"repeats\":", to: &b)
            }
            if repeats { J.appendLiteral("true", to: &b) } else { J.appendLiteral("false", to: &b) }
            text(",\"region\":{\"type\":", regionType)
            text(",\"id\":", regionID)
            if let regionName { text(",\"name\":", regionName) }
            text("}},\"device\":", device)
            if let fix {
                time(",\"fix\":{\"timestamp\":\"", fix.timestamp)
                number(",\"latitude\":", fix.latitude)
                number(",\"longitude\":", fix.longitude)
                if let a = fix.horizontalAccuracy { number(",\"horizontalAccuracy\":", a) }
                J.appendLiteral("}", to: &b)
            }
            if let beacon { general(",\"beacon\":") { beacon.writeJSON(to: &$0) } }
            if let nearby { general(",\"nearby\":") { nearby.writeJSON(to: &$0) } }
            time(",\"firedAt\":\"", firedAt)
            J.appendLiteral("}", to: &b)
        }
    }
}

extension NearbySnapshot {
    func writeJSON(to w: inout JSONWriter) {
        w.beginObject()
        w.field(literal: "device", device)
        w.key(literal: "timestamp")
        w.timestamp(timestamp)
        w.field(literal: "latitude", latitude)
        w.field(literal: "longitude", longitude)
        if let horizontalAccuracy { w.field(literal: "horizontalAccuracy", horizontalAccuracy) }
        w.field(literal: "distance", hundredths: distance)
        w.endObject()
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
