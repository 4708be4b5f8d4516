import Foundation
import Testing
import TestSupport
import TriggerEngine
@testable import Ingest

@Suite struct GPXDecoderTests {
    func decode(_ text: String, device: String? = "dev", perTrack: Bool = false, waypoints: Bool = true)
        -> (fixes: [LocationFix], errors: [IngestError], warnings: [IngestWarning])
    {
        decode(Array(text.utf8), GPXDecoder(source: "t.gpx", defaultDevice: device, devicePerTrack: perTrack, waypoints: waypoints))
    }

    func decode(_ bytes: [UInt8], _ decoder: GPXDecoder) -> (fixes: [LocationFix], errors: [IngestError], warnings: [IngestWarning]) {
        var d = decoder
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        bytes.withUnsafeBytes { d.decode($0, onRecord: { fixes.append($0) }, onError: { errors.append($0) }) }
        d.finish(onRecord: { fixes.append($0) }, onError: { errors.append($0) })
        return (fixes, errors, d.warnings)
    }

    static let twoTracksAndAWaypoint = """
            <?xml version="1.0"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
             <trk><name>truck &amp; trailer</name><trkseg>
              <trkpt lat="52.5" lon='13.4'><ele>40.5</ele><time>2026-11-20T07:00:00Z</time><hdop>0.8</hdop>
               <extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>12.5</gpxtpx:speed><gpxtpx:course>90</gpxtpx:course></gpxtpx:TrackPointExtension></extensions>
              </trkpt>
              <trkpt lat="52.6" lon="13.5"><time>2026-11-20T07:00:05Z</time><pdop>2</pdop></trkpt>
             </trkseg></trk>
             <wpt lat="1" lon="2"><time>2026-11-20T08:00:00Z</time><name>not a track</name></wpt>
             <trk><name>ACTIVE LOG #2</name><trkseg>
              <trkpt lat="52.7" lon="13.6"><time>2026-11-20T07:00:10Z</time></trkpt>
             </trkseg></trk>
            </gpx>
            """

    @Test func pointsCarryTheirValuesAndTheFilesDevice() throws {
        let r = decode(Self.twoTracksAndAWaypoint, waypoints: false)
        #expect(r.errors.isEmpty)
        #expect(r.fixes.map(\.device) == ["dev", "dev", "dev"])
        let f = try #require(r.fixes.first)
        #expect(f.horizontalAccuracy == 4)  // hdop 0.8 × 5 m
        #expect(f.altitude == 40.5 && f.speed == 12.5 && f.course == 90)
        #expect(r.fixes[1].horizontalAccuracy == 10)  // pdop 2 × 5 m, no hdop
    }

    @Test func devicePerTrackNamesPointsByTheirTrack() {
        let r = decode(Self.twoTracksAndAWaypoint, perTrack: true)
        #expect(r.errors.isEmpty)
        #expect(r.fixes.map(\.device) == ["truck & trailer", "truck & trailer", "dev", "ACTIVE LOG #2"])  // the waypoint: the default
    }

    @Test func waypointsAreLeftOutWithOneWarningUnlessAskedFor() {
        let without = decode(Self.twoTracksAndAWaypoint, waypoints: false)
        #expect(without.fixes.map(\.latitude) == [52.5, 52.6, 52.7])
        #expect(without.warnings.map(\.kind) == [IngestWarning.Kind.waypointsSkipped])
        #expect(without.warnings.first?.message.hasPrefix("1 waypoints left out") == true)
        let with = decode(Self.twoTracksAndAWaypoint, waypoints: true)
        #expect(with.fixes.map(\.latitude) == [52.5, 52.6, 1, 52.7])
        #expect(with.fixes[2].device == "dev")
        #expect(with.warnings.isEmpty)
        // A left-out waypoint without time is not an error either: it is not read at all.
        let untimed = decode("<gpx><wpt lat=\"1\" lon=\"2\"><name>x</name></wpt></gpx>", waypoints: false)
        #expect(untimed.errors.isEmpty && untimed.fixes.isEmpty && untimed.warnings.count == 1)
    }

    @Test func withoutADefaultDeviceEveryPointIsAMissingDevice() {
        let r = decode(Self.twoTracksAndAWaypoint, device: nil, waypoints: false)
        #expect(r.fixes.isEmpty)
        #expect(r.errors.map(\.kind) == Array(repeating: "missing-device", count: 3))
    }

    /// The Garmin file: one walk split into `ACTIVE LOG`, `ACTIVE LOG #2`… and seven waypoints.
    @Test(.enabled(if: SharedData.isAvailable, "skipped: needs ../shared/data (gpx)"))
    func aGarminFileWithEightTracksIsOneDevice() throws {
        let bytes = try SharedData.bytes("gpx/cerknicko-jezero.gpx")
        let byFile = decode(bytes, GPXDecoder(source: "cerknicko-jezero.gpx", defaultDevice: "cerknicko-jezero"))
        #expect(Set(byFile.fixes.map(\.device)) == ["cerknicko-jezero"])
        #expect(byFile.warnings.map(\.message) == ["7 waypoints left out (they are not a track)"])
        let byTrack = decode(bytes, GPXDecoder(source: "x", defaultDevice: "x", devicePerTrack: true))
        #expect(Set(byTrack.fixes.map(\.device)).count > 1)
        #expect(byTrack.fixes.count == byFile.fixes.count)
    }

    @Test func pointWithoutTimeIsOneErrorWithItsLine() {
        let r = decode("<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/>\n</trkseg></trk></gpx>")
        #expect(r.fixes.isEmpty)
        #expect(r.errors.map(\.kind) == ["missing-time"])
        #expect(r.errors.first?.line == 3)
        #expect(r.errors.first?.field == "trkpt/time")
    }

    @Test(arguments: [
        ("<gpx><trk><trkseg><trkpt lat=\"95\" lon=\"2\"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>", "latitude-out-of-range"),
        ("<gpx><wpt lon=\"2\"><time>2026-01-01T00:00:00Z</time></wpt></gpx>", "missing-field"),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><time>yesterday</time></wpt></gpx>", "invalid-timestamp"),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><time>2026-01-01T00:00:00Z</time></wpt>", "malformed-xml"),
        ("<kml></kml>", "malformed-xml"),
        ("<gpx><wpt lat=\"1\" lon=\"2\" <time></wpt></gpx>", "malformed-xml"),
    ])
    func badInputIsAPreciseError(text: String, kind: String) {
        let r = decode(text)
        #expect(r.errors.map(\.kind).contains(kind), "\(r.errors)")
    }

    @Test func hostileBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let seed = Array("<gpx><trk><name>x</name><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>".utf8)
        for _ in 0..<2000 {
            var b = seed
            for _ in 0..<Int.random(in: 1...6, using: &rng) { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            let cut = Array(b.prefix(Int.random(in: 0...b.count, using: &rng)))
            _ = decode(String(decoding: cut, as: UTF8.self))
        }
    }

    /// Points with a `<time>` child per file, counted independently with a regular expression over the raw files
    /// (see the commit that added this test); the rest must be `missing-time` errors.
    static let pointsWithTime: [String: Int] = [
        "Mojstrovka.gpx": 184, "around-visnjan-with-car.gpx": 104, "cerknicko-jezero-no-creator.gpx": 297,
        "cerknicko-jezero-with-elevations-zero.gpx": 296, "cerknicko-jezero-without-elevations.gpx": 295,
        "cerknicko-jezero.gpx": 297, "cerknicko-without-times.gpx": 5, "custom_schema_locations.gpx": 0,
        "default_schema_locations.gpx": 0, "first_and_last_elevation.gpx": 10, "gpx-with-node-with-comments.gpx": 1,
        "gpx1.0_with_all_fields.gpx": 3, "gpx1.1_with_all_fields.gpx": 3, "gpx1.1_with_extensions.gpx": 0,
        "gpx1.1_with_extensions_without_namespaces.gpx": 0, "gpx_with_garmin_extension.gpx": 1, "korita-zbevnica.gpx": 513,
        "route.gpx": 0, "track-with-empty-segment.gpx": 9, "track-with-extremes.gpx": 0, "track-with-less-sec-time.gpx": 2,
        "track-with-small-floats.gpx": 0, "track_with_dilution_errors.gpx": 0, "track_with_speed.gpx": 3, "unicode.gpx": 0,
        "unicode2.gpx": 0, "unicode_with_bom.gpx": 1, "unicode_with_bom_noencoding.gpx": 0,
        "validation_gpx10.gpx": 3, "validation_gpx11.gpx": 3,
    ]

    @Test(.enabled(if: SharedData.isAvailable, "skipped: needs ../shared/data (gpx)"))
    func everyGPXFileOfTheSharedSetParsesWithExactCounts() throws {
        let dir = SharedData.url("gpx")
        let csv = try String(contentsOf: dir.appendingPathComponent("gpx-files.csv"), encoding: .utf8)
        var checked = 0
        for row in csv.split(whereSeparator: \.isNewline).dropFirst() {
            let f = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let name = f[0]
            let points = Int(f[5])! + Int(f[7])! + Int(f[8])!  // trkpt + rtept + wpt, counted by Python's XML parser
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            let all = decode(bytes, GPXDecoder(source: name, defaultDevice: "dev", waypoints: true))
            let kinds = Dictionary(all.errors.map { ($0.kind, 1) }, uniquingKeysWith: +)
            #expect(all.fixes.count == Self.pointsWithTime[name], "\(name): \(all.fixes.count) fixes")
            #expect(all.fixes.count + (kinds["missing-time"] ?? 0) == points, "\(name): \(kinds)")
            #expect(kinds.keys.allSatisfy { $0 == "missing-time" }, "\(name): \(kinds)")
            // By default the waypoints (f[8]) are left out, counted in one warning, and nothing else changes.
            let tracks = decode(bytes, GPXDecoder(source: name, defaultDevice: "dev"))
            let trackErrors = tracks.errors.filter { $0.kind == "missing-time" }.count
            #expect(tracks.fixes.count + trackErrors == Int(f[5])! + Int(f[7])!, "\(name)")
            #expect(tracks.warnings.map(\.kind) == (Int(f[8])! > 0 ? [IngestWarning.Kind.waypointsSkipped] : []), "\(name)")
            checked += 1
        }
        #expect(checked == 30)
    }
}
