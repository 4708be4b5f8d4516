import Beacons
import Foundation
import Ingest
import JSON
import TriggerEngine

/// Inputs built once per benchmark, outside what is measured.
enum Fixtures {
    /// Fixes handed out in order, each device's timestamps increasing across iterations (the engine refuses
    /// nothing), from positions prepared in advance: taking one allocates nothing.
    final class FixStream: @unchecked Sendable {
        let devices: [String]
        let positions: [(latitude: Double, longitude: Double)]
        private var n = 0

        init(devices: [String], positions: [(latitude: Double, longitude: Double)]) {
            self.devices = devices
            self.positions = positions
        }

        /// The next fix (`k` is the benchmark's index, unused: the stream keeps its own count across iterations).
        func next(_ k: Int) -> LocationFix {
            defer { n += 1 }
            let p = positions[n % positions.count]
            return LocationFix(device: devices[n % devices.count], timestamp: Timestamp(microseconds: Int64(1_800_000_000 + n) * 1_000_000),
                               latitude: p.latitude, longitude: p.longitude)
        }
    }

    static func circle(_ k: Int, latitude: Double, longitude: Double, radius: Double) throws -> NotificationRequest {
        try RequestDecoder().decodeRequest(try JSONParser.parse(circleText(k, latitude: latitude, longitude: longitude, radius: radius)))
    }

    /// `count` distinct circle requests as JSON text, on a grid (identifiers r0, r1, …).
    static func circleRequestTexts(count: Int) -> [String] {
        (0..<count).map { k in circleText(k, latitude: 51.0 + Double(k / 100) * 0.01, longitude: 4.0 + Double(k % 100) * 0.01, radius: 150) }
    }

    static func circleText(_ k: Int, latitude: Double, longitude: Double, radius: Double) -> String {
        """
            {"identifier": "r\(k)", "content": {"title": "{event} {region.id}", "body": "Vessel {device} at {region.name}",
             "userInfo": {"berth": \(k), "port": "Rotterdam"}},
             "trigger": {"type": "location", "repeats": true,
                         "region": {"type": "circle", "id": "c\(k)", "name": "Berth \(k)", "center": {"latitude": \(latitude), "longitude": \(longitude)}, "radius": \(radius)}}}
            """
    }

    /// One circle and 500 devices stepping in and out of it: every fix fires.
    static func alternatingEngine() throws -> (TriggerEngine, FixStream) {
        let engine = TriggerEngine()
        _ = try engine.add(try circle(0, latitude: 51.9225, longitude: 4.4792, radius: 200))
        let devices = (0..<500).map { "vessel-\(244_000_000 + $0)" }
        // Each device's visits alternate between inside and 2 km away: 500 inside, then 500 outside, and so on.
        let positions = (0..<1_000).map { k in (latitude: k < 500 ? 51.9226 : 51.9405, longitude: 4.4792) }
        return (engine, FixStream(devices: devices, positions: positions))
    }

    /// `count` notifications fired by the engine for the circle above.
    static func firings(count: Int) throws -> [FiredNotification] {
        let (engine, fixes) = try alternatingEngine()
        var out: [FiredNotification] = []
        while out.count < count { _ = engine.process(fixes.next(0)) { out.append($0) } }
        return Array(out.prefix(count))
    }

    /// The issue's output workload: notifications of about 700 bytes (templates with every kind of placeholder, a
    /// userInfo of three members), fired by 1,000 requests in turn for 500 devices, so each comes from a different
    /// request's plan. The setup checks the size.
    static func richFirings(count: Int) throws -> [FiredNotification] {
        let engine = TriggerEngine()
        for k in 0..<1_000 {
            let text = """
                {"identifier": "berth-arrivals-\(k)", "content": {"title": "{event}: {device} at {region.name}",
                 "subtitle": "Rotterdam", "body": "Vessel {device} at {fix.latitude}, {fix.longitude} at {fix.time}",
                 "categoryIdentifier": "PORT_EVENT", "threadIdentifier": "port-{region.id}",
                 "userInfo": {"berth": \(k), "port": "Rotterdam", "draught": 12.5}},
                 "trigger": {"type": "location", "repeats": true,
                             "region": {"type": "circle", "id": "berth-\(k)", "name": "Berth \(k)",
                                        "center": {"latitude": \(51.9 + Double(k) * 0.001), "longitude": 4.0}, "radius": 30}}}
                """
            _ = try engine.add(try RequestDecoder().decodeRequest(try JSONParser.parse(text)))
        }
        var out: [FiredNotification] = []
        var n = 0
        while out.count < count {
            // Device d visits berth (n mod 1000), then leaves: an entry and an exit per visit.
            let device = "vessel-\(244_000_000 + n % 500)", berth = n % 1_000
            let t = Timestamp(microseconds: Int64(1_800_000_000 + n) * 1_000_000 + 250_000)
            for (dt, lat) in [(0, 51.9 + Double(berth) * 0.001), (1, 51.9 + Double(berth) * 0.001 + 0.0005)] {
                let fix = LocationFix(device: device, timestamp: Timestamp(microseconds: t.microseconds + Int64(dt) * 10_000_000),
                                      latitude: lat, longitude: 4.0000123, horizontalAccuracy: 8)
                _ = engine.process(fix) { out.append($0) }
            }
            n += 1
        }
        let average = out.prefix(count).reduce(0) { $0 + $1.jsonLine.utf8.count } / count
        precondition((650...750).contains(average), "rich notifications average \(average) bytes, not about 700")
        return Array(out.prefix(count))
    }

    /// `circles` small circles on a grid (~1.1 km apart) and fixes between them: the index is probed, no region
    /// holds the point, nothing fires.
    static func sparseEngine(circles: Int, devices: Int) throws -> (TriggerEngine, FixStream) {
        let engine = TriggerEngine()
        let side = Int(Double(circles).squareRoot().rounded(.up))
        for k in 0..<circles {
            _ = try engine.add(try circle(k, latitude: 51.0 + Double(k / side) * 0.01, longitude: 4.0 + Double(k % side) * 0.01, radius: 100))
        }
        var rng = SystemRandomNumberGenerator()
        let positions = (0..<4_096).map { _ in
            (latitude: 51.0 + Double(Int.random(in: 0..<side, using: &rng)) * 0.01 + 0.005,
             longitude: 4.0 + Double(Int.random(in: 0..<side, using: &rng)) * 0.01 + 0.005)
        }
        return (engine, FixStream(devices: (0..<devices).map { "device-\($0)" }, positions: positions))
    }

    enum Lines: Sendable { case ndjson, csv, nmea }

    /// `lines` fixes as a trace file's bytes.
    static func trace(lines: Int, as format: Lines) -> [UInt8] {
        var text = format == .csv ? "device,timestamp,latitude,longitude,accuracy\n" : ""
        for k in 0..<lines {
            let lat = 51.9 + Double(k % 97) * 0.0013, lon = 4.4 + Double(k % 89) * 0.0017
            switch format {
            case .ndjson:
                text += #"{"device":"vessel-\#(k % 50)","timestamp":"2026-11-24T10:\#(String(format: "%02d:%02d", (k / 60) % 60, k % 60))Z","latitude":\#(lat),"longitude":\#(lon),"horizontalAccuracy":8}"# + "\n"
            case .csv:
                text += "vessel-\(k % 50),2026-11-24T10:\(String(format: "%02d:%02d", (k / 60) % 60, k % 60))Z,\(lat),\(lon),8\n"
            case .nmea:
                let body = String(format: "GPRMC,10%02d%02d.00,A,%02d%07.4f,N,%03d%07.4f,E,5.2,87.0,241126,,,A",
                                  (k / 60) % 60, k % 60, 51, (lat - 51) * 60, 4, (lon - 4) * 60)
                let sum = body.utf8.reduce(UInt8(0), ^)
                text += "$\(body)*\(String(format: "%02X", sum))\r\n"
            }
        }
        return Array(text.utf8)
    }

    /// Decodes the whole chunk; returns the fixes (errors would show as a count below the line count).
    static func decode(_ chunk: [UInt8], as format: Lines) -> Int {
        var fixes = 0
        chunk.withUnsafeBytes { bytes in
            switch format {
            case .ndjson:
                var d = NDJSONFixDecoder(source: "bench")
                d.decode(bytes, onRecord: { _ in fixes += 1 }, onError: { _ in })
                d.finish(onRecord: { _ in fixes += 1 }, onError: { _ in })
            case .csv:
                var d = CSVFixDecoder(source: "bench")
                d.decode(bytes, onRecord: { _ in fixes += 1 }, onError: { _ in })
                d.finish(onRecord: { _ in fixes += 1 }, onError: { _ in })
            case .nmea:
                var d = NMEADecoder(source: "bench", defaultDevice: "vessel-1")
                d.decode(bytes, onRecord: { _ in fixes += 1 }, onError: { _ in })
                d.finish(onRecord: { _ in fixes += 1 }, onError: { _ in })
            }
        }
        return fixes
    }

    static let uuid = UUID128(string: "f7826da6-4fa2-4e98-8024-bc5b71e0893e")!

    /// Advertising data of the three identity frames, a few of each.
    static func advertisements() -> [[UInt8]] {
        (0..<12).compactMap { k -> [UInt8]? in
            let frame: BeaconFrame
            switch k % 3 {
            case 0: frame = BeaconFrame(kind: .iBeacon, identity: .iBeacon(uuid: uuid, major: 1, minor: UInt16(k)), txPower: -59)
            case 1: frame = BeaconFrame(kind: .altBeacon, identity: .altBeacon(id1: uuid, id2: 2, id3: UInt16(k)), txPower: -59)
            default:
                frame = BeaconFrame(kind: .eddystoneUID, identity: .eddystoneUID(namespace: EddystoneNamespace(high: 0xEDD1, low: UInt64(k)),
                                                                                  instance: EddystoneInstance(value: UInt64(k))), txPower: -59, rangingPower: -18)
            }
            return frame.advertisingData()
        }
    }

    /// LE Meta events, one legacy advertising report each, carrying the advertisements above.
    static func hciEvents() -> [[UInt8]] {
        advertisements().enumerated().compactMap { k, ad in
            HCIAdvertisingReport.leMetaEvent([HCIAdvertisingReport(eventType: 0, addressType: 1, address: BluetoothAddress(value: 0xC0FFEE_000000 + UInt64(k)),
                                                                   rssi: -70, data: ad[...])])
        }
    }
}
