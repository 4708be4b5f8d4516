import JSON
import TriggerEngine

/// A small circle around Berlin's Alexanderplatz and fixes inside and outside it, shared by the storage tests.
enum Fixture {
    static func request(_ identifier: String = "alex", repeats: Bool = true, dwell: Int = 0) -> NotificationRequest {
        let json = """
            {"identifier": "\(identifier)", "content": {"title": "{device} {event}"},
             "trigger": {"type": "location", "repeats": \(repeats), "dwell": \(dwell),
                         "region": {"type": "circle", "id": "alex", "center": {"latitude": 52.5219, "longitude": 13.4132},
                                    "radius": 100}}}
            """
        // The literal above is valid by construction: a failure here is a bug in the fixture.
        return try! RequestDecoder().decodeRequest(try! JSONParser.parse(json))
    }

    static func fix(_ device: String, second: Int, inside: Bool) -> LocationFix {
        LocationFix(device: device, timestamp: Timestamp(microseconds: Int64(1_800_000_000 + second) * 1_000_000),
                    latitude: inside ? 52.5219 : 52.5300, longitude: 13.4132)
    }

    /// One real entry notification.
    static func entry() -> FiredNotification {
        let engine = TriggerEngine()
        try! engine.add(request())
        var out: [FiredNotification] = []
        engine.process(fix("d", second: 0, inside: false)) { out.append($0) }
        engine.process(fix("d", second: 1, inside: true)) { out.append($0) }
        return out[0]
    }
}
