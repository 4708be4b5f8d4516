import Foundation
import JSON
import Testing
import TestSupport
import TriggerEngine
@testable import Ingest

/// gpsd's JSON reports: TPVs with a fix are fixes (eph, else the larger of epx/epy, as accuracy); the rest is
/// skipped and counted; against gpsd's own expected output for real receiver logs.
@Suite struct GpsdDecoderTests {
    static let session = [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183","activated":"2025-03-21T13:58:05.000Z"}]}"#,
        #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":1,"time":"2025-03-21T13:58:05.000Z"}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"epv":41.4,"eph":32.3}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2025-03-21T13:58:06.000Z","lat":47.3834,"lon":0.7647,"altHAE":111.19,"alt":62.89,"eph":9.5,"epx":12.3,"epy":48.9,"track":287.4,"speed":0.206}"#,
        #"{"class":"SKY","device":"/dev/ttyUSB0","hdop":1.7,"satellites":[]}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":2,"time":"2025-03-21T13:58:07.000Z","lat":47.3835,"lon":0.7648,"alt":60.0,"epx":12.3,"epy":48.9}"#,
        #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2025-03-21T13:58:08.000Z","lat":95,"lon":0.7648}"#,
    ].joined(separator: "\n") + "\n"

    @Test func tpvsWithAFixAreFixesTheRestIsCounted() {
        var decoder = GpsdDecoder(source: "t")
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        Array(Self.session.utf8).withUnsafeBytes { decoder.decode($0, onRecord: { fixes.append($0) }, onError: { errors.append($0) }) }
        decoder.finish(onRecord: { fixes.append($0) }, onError: { errors.append($0) })
        #expect(fixes.count == 2)
        #expect(fixes.map(\.device) == ["/dev/ttyUSB0", "/dev/ttyUSB0"])
        #expect(fixes[0].horizontalAccuracy == 9.5 && fixes[0].altitude == 111.19 && fixes[0].course == 287.4 && fixes[0].speed == 0.206)
        #expect(fixes[1].horizontalAccuracy == 48.9, "no eph: the larger of epx and epy")
        #expect(fixes[1].altitude == 60.0)
        #expect(decoder.skipped == ["VERSION": 1, "DEVICES": 1, "WATCH": 1, "SKY": 1, "no-fix": 1, "no-time": 1])
        #expect(errors.count == 1 && errors.first?.field == "lat", "\(errors)")
        var named = GpsdDecoder(source: "t", device: "truck-7")
        var renamed: [LocationFix] = []
        Array(Self.session.utf8).withUnsafeBytes { named.decode($0, onRecord: { renamed.append($0) }, onError: { _ in }) }
        #expect(renamed.map(\.device) == ["truck-7", "truck-7"])
        #expect(TraceFormat.detect(prefix: Array(Self.session.utf8), fileName: "x") == .gpsd)
    }

    /// gpsd's regression output (`.chk`) for real receivers: every TPV with a fix, a time and a position becomes a
    /// fix with gpsd's latitude and longitude, in order.
    @Test(.enabled(if: SharedData.isAvailable, "skipped: needs ../shared/data (gpsd)"))
    func gpsdsOwnReportsOfRealReceivers() throws {
        let folder = SharedData.url("gpsd")
        let checks = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".chk") }.sorted()
        var compared = 0
        for name in checks {
            let json = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }
            let expected = json.compactMap { line -> (Double, Double)? in
                guard let o = try? JSONParser.parse(Array(line.utf8)), o["class"]?.stringValue == "TPV",
                    (o["mode"]?.doubleValue ?? 0) >= 2, o["time"] != nil, let lat = o["lat"]?.doubleValue, let lon = o["lon"]?.doubleValue
                else { return nil }
                return (lat, lon)
            }
            var decoder = GpsdDecoder(source: name, defaultDevice: "rx")
            var fixes: [LocationFix] = []
            Array((json.joined(separator: "\n") + "\n").utf8).withUnsafeBytes { decoder.decode($0, onRecord: { fixes.append($0) }, onError: { _ in }) }
            decoder.finish(onRecord: { fixes.append($0) }, onError: { _ in })
            #expect(fixes.count == expected.count, "\(name)")
            #expect(zip(fixes, expected).allSatisfy { $0.latitude == $1.0 && $0.longitude == $1.1 }, "\(name)")
            compared += expected.count
        }
        #expect(compared > 1000, "the logs hold few fixes: \(compared)")
    }
}
