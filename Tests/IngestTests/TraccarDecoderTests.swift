import Ingest
import Testing
import TriggerEngine

/// Samples written from Traccar's documented `Position` model (api/swagger: id, deviceId, protocol, deviceTime, fixTime,
/// serverTime, outdated, valid, latitude, longitude, altitude, speed in knots, course, address, accuracy, network,
/// attributes) and its JSON forwarding payload `{"position": …, "device": …}`.
@Suite struct TraccarDecoderTests {
    let decoder = TraccarDecoder(source: "positions.json")

    static let apiArray = """
        [
          {"id": 12345, "attributes": {"batteryLevel": 85, "motion": true}, "deviceId": 10, "protocol": "osmand",
           "serverTime": "2024-05-20T14:30:00.000+00:00", "deviceTime": "2024-05-20T14:29:54.000+00:00",
           "fixTime": "2024-05-20T14:29:55.000+00:00", "outdated": false, "valid": true,
           "latitude": -23.55052, "longitude": -46.633308, "altitude": 760.0, "speed": 13.5, "course": 180.0,
           "address": "Av. Paulista", "accuracy": 4.5, "network": null},
          {"id": 12346, "attributes": {}, "deviceId": 10, "protocol": "osmand",
           "deviceTime": "2024-05-20T14:30:25.000+0000", "fixTime": null, "valid": true,
           "latitude": -23.551, "longitude": -46.634, "altitude": 0, "speed": 0, "course": 0, "accuracy": 0}
        ]
        """

    @Test func anAPIPositionArrayBecomesFixesWithSpeedInMetresPerSecond() throws {
        let out = decode(decoder, Self.apiArray)
        #expect(out.errors.isEmpty)
        #expect(out.fixes.count == 2)
        let fix = try #require(out.fixes.first)
        #expect(fix.device == "10")
        #expect(fix.timestamp == ts("2024-05-20T14:29:55Z"))
        #expect(fix.latitude == -23.55052 && fix.longitude == -46.633308)
        #expect(fix.altitude == 760 && fix.course == 180 && fix.horizontalAccuracy == 4.5)
        #expect(approximately(fix.speed, 13.5 * 1852 / 3600))
    }

    @Test func deviceTimeStandsInForAMissingFixTimeAndZeroAccuracyIsUnknown() {
        let out = decode(decoder, Self.apiArray)
        #expect(out.fixes.last?.timestamp == ts("2024-05-20T14:30:25Z"))
        #expect(out.fixes.last?.horizontalAccuracy == nil)
    }

    @Test func theForwardingPayloadNamesTheDeviceByUniqueId() throws {
        let out = decode(decoder, """
            {"position":{"id":1,"deviceId":10,"fixTime":"2024-05-20T14:29:55.000+00:00","valid":true,\
            "latitude":52.1,"longitude":13.2,"speed":1,"course":2},\
            "device":{"id":10,"name":"Company Car 01","uniqueId":"123456789012345","status":"online"}}
            {"position":{"deviceId":11,"fixTime":"2024-05-20T14:29:56Z","latitude":52.1,"longitude":13.2},\
            "device":{"id":11,"name":"Van","uniqueId":null}}
            {"event":{"id":500,"type":"deviceOnline","deviceId":10},"device":{"uniqueId":"123456789012345"}}
            """)
        #expect(out.errors.isEmpty)
        #expect(out.fixes.map(\.device) == ["123456789012345", "Van"])
    }

    @Test func eventsWithoutAPositionAreIgnoredNotErrors() {
        var d = decoder
        let bytes = Array(#"{"event":{"id":500,"type":"deviceOffline"},"device":{"uniqueId":"x"}}"#.utf8)
        var errors = 0, fixes = 0
        bytes.withUnsafeBytes { d.decode($0, onRecord: { _ in fixes += 1 }, onError: { _ in errors += 1 }) }
        d.finish(onRecord: { _ in fixes += 1 }, onError: { _ in errors += 1 })
        #expect(fixes == 0 && errors == 0 && d.ignoredCount == 1)
    }

    @Test func aPositionTheDeviceMarkedInvalidIsRejectedUnlessAccepted() throws {
        let line = #"{"uniqueId":"imei-1","fixTime":"2024-05-20T14:29:55Z","valid":false,"latitude":1,"longitude":2}"#
        let e = try #require(decode(decoder, line).errors.first)
        #expect(e.kind == "invalid-fix" && e.field == "valid")
        let accepted = decode(TraccarDecoder(source: "p", acceptsInvalidPositions: true), line)
        #expect(accepted.fixes.map(\.device) == ["imei-1"])
    }

    @Test(arguments: [
        (#"{"deviceId":1,"fixTime":"2024-05-20T14:29:55Z","latitude":1}"#, "missing-field", "longitude" as String?),
        (#"{"deviceId":1,"fixTime":"yesterday","latitude":1,"longitude":2}"#, "invalid-timestamp", "fixTime"),
        (#"{"deviceId":1,"latitude":1,"longitude":2}"#, "missing-field", "deviceTime"),
        (#"{"deviceId":1,"fixTime":"2024-05-20T14:29:55Z","latitude":-91,"longitude":2}"#, "latitude-out-of-range",
         "latitude"),
        (#"{"deviceId":1,"fixTime":"2024-05-20T14:29:55Z","latitude":1,"longitude":2,"valid":"yes"}"#, "wrong-type",
         "valid"),
        (#"{"deviceId":1.5,"fixTime":"2024-05-20T14:29:55Z","latitude":1,"longitude":2}"#, "wrong-type", "deviceId"),
        (#"{"fixTime":"2024-05-20T14:29:55Z","latitude":1,"longitude":2}"#, "missing-device", "deviceId"),
        (#"{"position":[1],"device":{}}"#, "wrong-type", "position"),
        (#"{"deviceId":1,"fixTime":"2024-05-20T14:29:55Z","latitude":1,"longitude":2"#, "malformed-json", nil),
        (#"17"#, "wrong-type", nil),
    ])
    func everyBadPositionIsOneErrorWithKindAndField(text: String, kind: String, field: String?) throws {
        let good = #"{"deviceId":1,"fixTime":"2024-05-20T14:29:55Z","latitude":0,"longitude":0}"#
        let out = decode(decoder, good + "\n" + text + "\n")
        #expect(out.fixes.count == 1)
        let e = try #require(out.errors.first)
        #expect(out.errors.count == 1)
        #expect(e.kind == kind)
        #expect(e.field == field)
        #expect(e.line == 2)
    }

    @Test(arguments: chunkings)
    func chunkBoundariesDoNotChangeTheOutput(chunkSize: Int?) {
        let text = Self.apiArray + "\n" + #"{"deviceId":2,"fixTime":"2024-05-20T14:29:55Z","latitude":95,"longitude":0}"#
        let whole = decode(decoder, text)
        #expect(whole.fixes.count == 2 && whole.kinds == ["latitude-out-of-range"])
        #expect(decode(decoder, text, chunkSize: chunkSize) == whole)
    }
}
