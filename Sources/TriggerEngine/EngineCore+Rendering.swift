import JSON

extension EngineCore {
    /// The SPEC §4 notification for a firing. Nothing is rendered here: the notification keeps the firing and fills
    /// in its templates when its fields are read or its JSON is written (`FiredNotification+Rendering.swift`).
    static func render(_ plan: NotificationPlan, device: String, event: FiredNotification.Event, at time: Timestamp,
                       ordinal: UInt32, evidence: Evidence?) -> FiredNotification {
        var fix: FixSnapshot?
        var beacon: BeaconSnapshot?
        switch evidence {
        case .fix(let f): fix = f
        case .beacon(let b): beacon = b
        case nil: break
        }
        return FiredNotification(.init(plan: plan, device: device, event: event, firedAt: time, ordinal: ordinal,
                                       fix: fix, beacon: beacon, nearby: nil))
    }

    /// The slot's notification plan, built when its request first fires (`NotificationPlan`); nil for an empty
    /// slot. A slot with a plan has its request (both are cleared together), so the request object itself, cold
    /// when thousands of requests fire in turn, is not touched.
    mutating func plan(slot: Int32) -> NotificationPlan? {
        if let plan = plans[Int(slot)] { return plan }
        guard let c = compiled[Int(slot)] else { return nil }
        let plan = NotificationPlan(c)
        plans[Int(slot)] = plan
        return plan
    }

    /// `identifier/device/revision-TIME[-k]`: TIME is the firing's event time in Unix seconds (with the fraction
    /// when there is one), k the device's k-th notification at that exact time when k > 1. Built from the device's
    /// own timeline only, so it is the same however devices interleave or input is batched, and a restart or a
    /// replay of the same input gives the same ids.
    ///
    /// The id's bytes are written once into the String's own storage: interpolating the pieces and trimming the
    /// fraction a character at a time was ~10 % of a notification-dense replay (`Tools/bench/notify_dense.py`).
    static func deliveryId(identifier: String, device: String, revision: UInt64, at time: Timestamp, ordinal: UInt32) -> String {
        let capacity = identifier.utf8.count + device.utf8.count + 2 + deliveryIdTailCapacity
        return String(unsafeUninitializedCapacity: capacity) { out in
            var i = 0
            func bytes(_ s: String) { for b in s.utf8 { out[i] = b; i += 1 } }
            bytes(identifier); out[i] = UInt8(ascii: "/"); i += 1
            bytes(device); out[i] = UInt8(ascii: "/"); i += 1
            return i + writeDeliveryIdTail(revision: revision, at: time, ordinal: ordinal, into: out.baseAddress! + i)
        }
    }

    /// The most bytes `writeDeliveryIdTail` writes: revision ≤ 20 digits, "-", seconds ≤ 20 with its sign, "." and
    /// 6 digits, "-" and ≤ 10 digits.
    static var deliveryIdTailCapacity: Int { 60 }

    /// `revision-TIME[-k]`, the part of the deliveryId after `identifier/device/`, at `out`; returns its length.
    /// Shared by the String above and the notification's JSON, which writes the id without building it.
    static func writeDeliveryIdTail(revision: UInt64, at time: Timestamp, ordinal: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        let us = time.microseconds
        var seconds = us / 1_000_000
        var fraction = us % 1_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000 }
        var i = 0
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

    static func coordinateText(_ v: Double) -> String {
        var w = JSONWriter(capacity: 24)
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
