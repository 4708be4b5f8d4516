import JSON

extension EngineCore {
    /// The SPEC §4 notification for a firing: templates filled in, defaults applied, a fresh `deliveryId`.
    static func render(_ c: CompiledRequest, device: String, event: FiredNotification.Event, at time: Timestamp,
                       ordinal: UInt32, evidence: Evidence?) -> FiredNotification {
        // Fields are read through `c` where they are needed: copying the whole request (every String and array in
        // it retained, then released) was ~7 % of a notification-dense replay.
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
            case .regionID: return c.request.trigger.region.id
            case .regionName: return c.request.trigger.region.name ?? c.request.trigger.region.id
            case .event: return event.rawValue
            case .fixTime: return fix?.timestamp.rfc3339 ?? beacon?.timestamp.rfc3339 ?? ""
            case .fixLatitude: return fix.map { Self.coordinateText($0.latitude) } ?? ""
            case .fixLongitude: return fix.map { Self.coordinateText($0.longitude) } ?? ""
            case .beaconProximity: return beacon?.proximity.rawValue ?? ""
            case .userInfo(let key):
                guard let v = c.request.content.userInfo[key] else { return "" }
                return v.stringValue ?? v.jsonText
            }
        }
        var content = c.request.content
        content.title = c.templates.title.render(value)
        content.subtitle = c.templates.subtitle.render(value)
        content.body = c.templates.body.render(value)
        content.threadIdentifier = c.templates.threadIdentifier?.render(value) ?? c.request.trigger.region.id
        content.summaryArgument = c.templates.summaryArgument?.render(value) ?? device
        return FiredNotification(
            identifier: c.request.identifier, deliveryId: deliveryId(c, device: device, at: time, ordinal: ordinal),
            content: content, event: event, repeats: c.request.trigger.repeats, regionType: c.regionTypeName,
            regionID: c.request.trigger.region.id, regionName: c.request.trigger.region.name, device: device, fix: fix,
            beacon: beacon, firedAt: time)
    }

    /// `identifier/device/revision-TIME[-k]`: TIME is the firing's event time in Unix seconds (with the fraction
    /// when there is one), k the device's k-th notification at that exact time when k > 1. Built from the device's
    /// own timeline only, so it is the same however devices interleave or input is batched, and a restart or a
    /// replay of the same input gives the same ids.
    static func deliveryId(_ c: CompiledRequest, device: String, at time: Timestamp, ordinal: UInt32) -> String {
        deliveryId(identifier: c.request.identifier, device: device, revision: c.revision, at: time, ordinal: ordinal)
    }

    /// The id's bytes written once into the String's own storage: interpolating the pieces and trimming the fraction
    /// a character at a time was ~10 % of a notification-dense replay (`Tools/bench/notify_dense.py`).
    static func deliveryId(identifier: String, device: String, revision: UInt64, at time: Timestamp, ordinal: UInt32) -> String {
        let us = time.microseconds
        var seconds = us / 1_000_000
        var fraction = us % 1_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000 }
        // Separators 4, revision ≤ 20 digits, seconds ≤ 20 with its sign, "." and 6 digits, "-" and ≤ 10 digits.
        let capacity = identifier.utf8.count + device.utf8.count + 64
        return String(unsafeUninitializedCapacity: capacity) { out in
            var i = 0
            func bytes(_ s: String) { for b in s.utf8 { out[i] = b; i += 1 } }
            func byte(_ b: UInt8) { out[i] = b; i += 1 }
            func unsigned(_ value: UInt64) {
                var digits = 1, p: UInt64 = 10
                while digits < 20, value >= p { digits += 1; p = p &* 10 }
                var v = value
                for k in stride(from: digits - 1, through: 0, by: -1) {
                    out[i + k] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
                i += digits
            }
            bytes(identifier); byte(UInt8(ascii: "/")); bytes(device); byte(UInt8(ascii: "/"))
            unsigned(revision); byte(UInt8(ascii: "-"))
            if seconds < 0 { byte(UInt8(ascii: "-")) }
            unsigned(seconds.magnitude)
            if fraction != 0 {
                byte(UInt8(ascii: "."))
                var f = fraction, width = 6
                while f % 10 == 0 { f /= 10; width -= 1 }
                for k in stride(from: width - 1, through: 0, by: -1) {
                    out[i + k] = UInt8(ascii: "0") + UInt8(f % 10)
                    f /= 10
                }
                i += width
            }
            if ordinal > 1 { byte(UInt8(ascii: "-")); unsigned(UInt64(ordinal)) }
            return i
        }
    }

    static func coordinateText(_ v: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
