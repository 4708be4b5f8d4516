import JSON
import Testing
import TestSupport
@testable import TriggerEngine

/// A notification from the engine writes its JSON straight from the firing (`JSONCursor`, templates filled in as
/// they are escaped, the deliveryId never built). Its bytes must equal those of its rendered fields, written by the
/// member-by-member reference, for random requests: every placeholder, escapes and non-ASCII text in every string
/// that reaches the output, times before 1970 and with fractions, several firings at one instant (the deliveryId's
/// ordinal), dwell (fired after the fix), beacon evidence, and content too large for the stack buffer (a heap one takes
/// over) and for that too (the array writer).
@Suite struct FiringJSONTests {
    static let placeholders = ["{device}", "{region.id}", "{region.name}", "{event}", "{fix.time}", "{fix.latitude}",
                               "{fix.longitude}", "{beacon.proximity}", "{userInfo.k}", "{userInfo.list}", "{{", "}}"]

    static func template(_ rng: inout SplitMix) -> String {
        (0..<Int(rng.next() % 5)).map { _ in
            rng.next() % 2 == 0 ? NotificationJSONTests.text(&rng) : placeholders[Int(rng.next() % UInt64(placeholders.count))]
        }.joined()
    }

    static func request(_ rng: inout SplitMix, identifier: String, region: JSONValue, long: Int = 0, dwell: Bool = false) -> JSONValue {
        func maybe(_ key: String, _ v: JSONValue) -> [(key: String, value: JSONValue)] { rng.next() % 2 == 0 ? [(key, v)] : [] }
        let text: (inout SplitMix) -> String = NotificationJSONTests.text
        var content: [(key: String, value: JSONValue)] = [
            ("title", .string(template(&rng))), ("subtitle", .string(template(&rng))),
            ("body", .string(long > 0 ? String(repeating: "long \"body\" {device} ", count: long) : template(&rng))),
            ("categoryIdentifier", .string(text(&rng))),
            ("userInfo", .object([(key: "k", value: .string(text(&rng))), (key: "list", value: .array([.number(1.5), .string(text(&rng))])),
                                  (key: text(&rng) + "x", value: .object([(key: "n", value: .number(-3))]))])),
        ]
        content += maybe("badge", .number(Double(rng.next() % 100)))
        content += maybe("sound", .string(text(&rng)))
        content += maybe("threadIdentifier", .string(template(&rng)))
        content += maybe("summaryArgument", .string(template(&rng)))
        return .object([("identifier", .string(identifier)), ("content", .object(content)),
                        ("trigger", .object([("region", region), ("repeats", .bool(rng.next() % 2 == 0)), ("initialTrigger", .bool(true))]
                                     + (dwell ? [("dwell", .number(1))] : [])))])
    }

    @Test func aFiringWritesTheBytesOfItsRenderedFields() throws {
        var rng = SplitMix(seed: 29)
        let decoder = RequestDecoder()
        var checked = 0, onTheStack = 0, onTheHeap = 0, tooLarge = 0, beacons = 0, ordinals = 0, afterTheFix = 0
        for round in 0..<150 {
            let engine = TriggerEngine()
            let text: (inout SplitMix) -> String = NotificationJSONTests.text
            let lat = rng.double(-60, 60), lon = rng.double(-170, 170)
            // Two to four requests on the same place: they fire at the same instant, so ordinals go past 1.
            for k in 0..<(2 + Int(rng.next() % 3)) {
                var region: [(key: String, value: JSONValue)] = [
                    ("type", .string("circle")), ("id", .string(text(&rng) + "r\(k)")),
                    ("center", .object([("latitude", .number(lat)), ("longitude", .number(lon))])), ("radius", .number(500)),
                ]
                if rng.next() % 2 == 0 { region.append(("name", .string(text(&rng)))) }
                let r = Self.request(&rng, identifier: text(&rng) + "id\(k)", region: .object(region), long: k > 0 ? 0 : round % 20 == 0 ? 4_000 : round % 10 == 0 ? 400 : 0,
                                     dwell: k == 1)
                try engine.add(try decoder.decodeRequest(try JSONParser.parse(r.jsonText)))
            }
            let uuid = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
            let beaconRegion: JSONValue = .object([("type", .string("beacon")), ("id", .string(text(&rng) + "door")), ("uuid", .string(uuid))])
            let beaconRequest = Self.request(&rng, identifier: text(&rng) + "b", region: beaconRegion)
            try engine.add(try decoder.decodeRequest(try JSONParser.parse(beaconRequest.jsonText)))

            let device = text(&rng) + "d"
            // Before 1970 in a third of the rounds; microsecond, millisecond and whole-second times.
            var t = Timestamp(microseconds: (round % 3 == 0 ? -2_000_000_000 : 1_700_000_000) * 1_000_000)
            var fired: [FiredNotification] = []
            for step in 0..<6 {
                t = Timestamp(microseconds: t.microseconds + [1_000_000, 1_500, 1_000_000_001, 7][Int(rng.next() % 4)])
                let inside = step % 2 == 0
                let fix = LocationFix(device: device, timestamp: t, latitude: inside ? lat : lat + 0.1, longitude: lon,
                                      horizontalAccuracy: rng.next() % 2 == 0 ? nil : rng.double(0, 20))
                _ = engine.process(fix) { fired.append($0) }
                let sighting = BeaconSighting(device: device, timestamp: t, identity: .iBeacon(uuid: UUID128(string: uuid)!, major: 1, minor: 2),
                                              rssi: -60, txPower: -59, address: "C0:FF:EE:00:00:01", proximity: .near, distance: 1.2)
                _ = engine.process(sighting) { fired.append($0) }
            }
            for n in fired {
                guard case .firing(let g) = n.storage else { Issue.record("an engine notification without its firing"); continue }
                var direct = JSONWriter()
                // Which of writeJSON's three ways this notification takes.
                if direct.appendThroughCursor({ g.writeJSON(to: &$0) }) {
                    onTheStack += 1
                } else if direct.appendThroughCursor(capacity: 1 << 16, { g.writeJSON(to: &$0) }) {
                    onTheHeap += 1
                } else {
                    tooLarge += 1
                }
                var written = JSONWriter()
                n.writeJSON(to: &written)
                var reference = JSONWriter()
                NotificationJSONTests.reference(n, to: &reference)
                #expect(written.bytes == reference.bytes, "\(round): \(String(decoding: written.bytes, as: UTF8.self))")
                if !direct.bytes.isEmpty { #expect(direct.bytes == reference.bytes) }
                // The journal's line (one String through the stack cursor, or the writer past it) is the same text.
                #expect(Array(n.jsonLine.utf8) == reference.bytes)
                // `repeats` is read from the plan, the request's own flag when it was compiled.
                #expect(n.repeats == g.compiled.request.trigger.repeats)
                // The same notification built field by field is equal, hashes alike and writes the same bytes.
                let f = n.fields
                let built = FiredNotification(identifier: f.identifier, deliveryId: f.deliveryId, content: f.content, event: f.event,
                                              repeats: f.repeats, regionType: f.regionType, regionID: f.regionID, regionName: f.regionName,
                                              device: f.device, fix: f.fix, beacon: f.beacon, firedAt: f.firedAt)
                #expect(built == n && built.hashValue == n.hashValue)
                var fromFields = JSONWriter()
                built.writeJSON(to: &fromFields)
                #expect(fromFields.bytes == reference.bytes)
                if n.beacon != nil { beacons += 1 }
                if let fix = n.fix, fix.timestamp != n.firedAt { afterTheFix += 1 }
                if n.deliveryId.split(separator: "/").last!.split(separator: "-").count > 2 { ordinals += 1 }
                checked += 1
            }
        }
        // Every kind of firing was exercised, and most through the cursor.
        #expect(checked > 1_000 && onTheStack > checked / 2 && onTheHeap > 0 && tooLarge > 0 && beacons > 0 && ordinals > 0 && afterTheFix > 0,
                "\(checked) checked: \(onTheStack) on the stack, \(onTheHeap) on the heap, \(tooLarge) too large; \(beacons) beacon, \(ordinals) with an ordinal, \(afterTheFix) fired after their fix")
    }

    /// A request's compiled notification (`NotificationPlan`) is built at its first firing: a replaced or restored
    /// request must not write the old one's text.
    @Test func aReplacedOrRestoredRequestWritesItsOwnText() throws {
        let h = Harness()
        func request(_ title: String) -> String {
            #"{"identifier":"c","content":{"title":"\#(title) {event}"},"trigger":{"region":{"type":"circle","id":"r","center":{"latitude":51,"longitude":4},"radius":100},"repeats":true}}"#
        }
        var t: Int64 = 0
        func visit() -> [String] {
            var lines: [String] = []
            for lat in [51.1, 51.0] {
                t += 1_000_000
                _ = h.engine.process(LocationFix(device: "d", timestamp: Timestamp(microseconds: t), latitude: lat, longitude: 4)) { lines.append($0.jsonLine) }
            }
            return lines
        }
        try h.add(request("one"))
        #expect(visit().first?.contains(#""title":"one entry""#) == true)
        try h.add(request("two"))
        #expect(visit().first?.contains(#""title":"two entry""#) == true)
        let state = try #require(h.engine.state(ofRequest: "c"))
        try h.engine.restore(try h.decoder.decodeRequest(try JSONParser.parse(request("three"))), state: state)
        #expect(visit().first?.contains(#""title":"three entry""#) == true)
    }

    /// The engine prefetches candidates' plans by reading the plan array's bits as addresses
    /// (`EngineCore.prefetchPlans`): an optional plan must be exactly one pointer, nil being zero.
    @Test func anOptionalPlanIsOnePointer() throws {
        #expect(MemoryLayout<NotificationPlan?>.size == MemoryLayout<UnsafeRawPointer?>.size)
        let h = Harness()
        try h.circle("c", lat: 51, lon: 4, radius: 100)
        let plan = NotificationPlan(try #require(h.engine.core.compiled[0]))
        let plans: [NotificationPlan?] = [nil, plan]
        let bits = plans.withUnsafeBytes { raw in (0..<2).map { raw.load(fromByteOffset: $0 * 8, as: UnsafeRawPointer?.self) } }
        #expect(bits[0] == nil && bits[1] == UnsafeRawPointer(Unmanaged.passUnretained(plan).toOpaque()))
    }

    @Test func settingAFieldKeepsTheOthers() throws {
        let h = Harness()
        try h.circle("c", lat: 51, lon: 4, radius: 100)
        _ = h.engine.process(LocationFix(device: "d", timestamp: Timestamp(microseconds: 1_000_000), latitude: 51.1, longitude: 4)) { h.out.append($0) }
        _ = h.engine.process(LocationFix(device: "d", timestamp: Timestamp(microseconds: 2_000_000), latitude: 51, longitude: 4)) { h.out.append($0) }
        var n = try #require(h.out.first)
        let before = n.fields
        n.device = "other"
        #expect(n.device == "other" && n.deliveryId == before.deliveryId && n.content == before.content && n.firedAt == before.firedAt)
        #expect(n.jsonLine.contains(#""device":"other""#) && n.jsonLine.contains(before.deliveryId))
    }
}
