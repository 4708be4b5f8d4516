import JSON
import Testing
import TestSupport
@testable import TriggerEngine

/// `FiredNotification.writeJSON` writes its fixed shape as runs of constant JSON; the general writer, member by
/// member, is the reference: the bytes must be the same for every combination of optional members, escapes,
/// non-ASCII text, nested userInfo, fix or beacon evidence, inside an array too.
@Suite struct NotificationJSONTests {
    @Test func theFixedShapeWriterMatchesTheGeneralWriter() {
        var rng = SplitMix(seed: 13)
        for k in 0..<2_000 {
            let n = Self.random(&rng, k)
            var fast = JSONWriter()
            n.writeJSON(to: &fast)
            var reference = JSONWriter()
            Self.reference(n, to: &reference)
            #expect(fast.bytes == reference.bytes, "\(k): \(String(decoding: fast.bytes, as: UTF8.self))")
            // As an array element (a webhook batch): the separator comes from the enclosing writer.
            var a = JSONWriter(), b = JSONWriter()
            a.beginArray(); n.writeJSON(to: &a); n.writeJSON(to: &a); a.endArray()
            b.beginArray(); Self.reference(n, to: &b); Self.reference(n, to: &b); b.endArray()
            #expect(a.bytes == b.bytes)
        }
    }

    static func text(_ rng: inout SplitMix) -> String {
        let pieces = ["plain", "with \"quotes\"", "back\\slash", "tab\tand\nnewline", "\u{1}ctl", "Zürich", "東京", "🚚", "", " "]
        return (0..<Int(rng.next() % 4)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
    }

    static func random(_ rng: inout SplitMix, _ k: Int) -> FiredNotification {
        func maybe<T>(_ v: T) -> T? { rng.next() % 2 == 0 ? v : nil }
        let members: [(key: String, value: JSONValue)] = [
            (text(&rng) + "a", .string(text(&rng))), ("n", .number(rng.double(-1e6, 1e6))),
            ("list", .array([.bool(true), .null, .number(3)])), ("nested", .object([(key: "x", value: .string(text(&rng)))])),
        ]
        let userInfo: JSONValue = rng.next() % 3 == 0 ? .object([]) : .object(members)
        let content = NotificationContent(title: text(&rng), subtitle: text(&rng), body: text(&rng), badge: maybe(k % 7 == 0 ? Int.max - k : Int(rng.next() % 100)),
                                          sound: maybe(text(&rng)), categoryIdentifier: text(&rng),
                                          threadIdentifier: maybe(text(&rng)), summaryArgument: maybe(text(&rng)), userInfo: userInfo)
        let time = Timestamp(microseconds: 1_700_000_000_000_000 + Int64(rng.next() % 1_000_000_000_000))
        var fix: FixSnapshot?
        var beacon: BeaconSnapshot?
        if k % 3 != 2 {
            fix = FixSnapshot(timestamp: time, latitude: rng.double(-90, 90), longitude: k % 5 == 0 ? 13 : rng.double(-180, 180),
                              horizontalAccuracy: maybe(rng.double(0, 100).rounded()))
        } else {
            let identity: BeaconIdentity = k % 2 == 0
                ? .iBeacon(uuid: UUID128(high: rng.next(), low: rng.next()), major: UInt16(k % 65_536), minor: 7)
                : .eddystoneUID(namespace: EddystoneNamespace(high: UInt16(k % 65_536), low: rng.next()), instance: EddystoneInstance(value: rng.next()))
            beacon = BeaconSnapshot(timestamp: time, identity: identity, rssi: maybe(-Int(rng.next() % 100)), proximity: .near,
                                    distance: maybe(rng.double(0, 30)), address: maybe("AA:BB:CC:DD:EE:FF"))
        }
        return FiredNotification(identifier: text(&rng) + "id", deliveryId: "id/\(k)/1-\(k)", content: content,
                                 event: k % 2 == 0 ? .entry : .exit, repeats: k % 4 < 2, regionType: k % 3 == 2 ? "beacon" : "circle",
                                 regionID: text(&rng) + "r", regionName: maybe(text(&rng)), device: "device-\(k)", fix: fix, beacon: beacon,
                                 firedAt: time)
    }

    /// The member-by-member rendering this file's writer replaced.
    static func reference(_ n: FiredNotification, to w: inout JSONWriter) {
        w.beginObject()
        w.field(literal: "identifier", n.identifier)
        w.field(literal: "deliveryId", n.deliveryId)
        w.key(literal: "content")
        w.beginObject()
        w.field(literal: "title", n.content.title)
        w.field(literal: "subtitle", n.content.subtitle)
        w.field(literal: "body", n.content.body)
        if let badge = n.content.badge { w.field(literal: "badge", badge) }
        if let sound = n.content.sound { w.field(literal: "sound", sound) }
        w.field(literal: "categoryIdentifier", n.content.categoryIdentifier)
        w.field(literal: "threadIdentifier", n.content.threadIdentifier ?? n.regionID)
        w.field(literal: "summaryArgument", n.content.summaryArgument ?? n.device)
        w.key(literal: "userInfo")
        w.value(n.content.userInfo)
        w.endObject()
        w.key(literal: "trigger")
        w.beginObject()
        w.field(literal: "type", "location")
        w.field(literal: "event", n.event.rawValue)
        w.field(literal: "repeats", n.repeats)
        w.key(literal: "region")
        w.beginObject()
        w.field(literal: "type", n.regionType)
        w.field(literal: "id", n.regionID)
        if let name = n.regionName { w.field(literal: "name", name) }
        w.endObject()
        w.endObject()
        w.field(literal: "device", n.device)
        if let fix = n.fix {
            w.key(literal: "fix")
            w.beginObject()
            w.key(literal: "timestamp")
            w.timestamp(fix.timestamp)
            w.field(literal: "latitude", fix.latitude)
            w.field(literal: "longitude", fix.longitude)
            if let a = fix.horizontalAccuracy { w.field(literal: "horizontalAccuracy", a) }
            w.endObject()
        }
        if let beacon = n.beacon {
            w.key(literal: "beacon")
            beacon.writeJSON(to: &w)
        }
        w.key(literal: "firedAt")
        w.timestamp(n.firedAt)
        w.endObject()
    }
}
