import JSON
import Foundation
import Testing
import TestSupport
import TriggerEngine
@testable import Ingest

/// gpsd's own decode of real receiver logs as the oracle: every position gpsd reported (a TPV with lat/lon in the
/// `.chk` file) must be reproduced by a fix with the same second, within 1e-6 degrees.
@Suite(.enabled(if: SharedData.isAvailable, "skipped: needs ../shared/data (gpsd)"))
struct NMEAGpsdOracleTests {
    struct LogResult {
        var expected = 0
        var matched = 0
        var fixes = 0
        var errors: [String: Int] = [:]
    }

    static func check(_ name: String) throws -> LogResult {
        let dir = SharedData.url("gpsd")
        let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
        var d = NMEADecoder(source: name, defaultDevice: "gps")
        var fixes: [LocationFix] = []
        var r = LogResult()
        // Fed in odd-sized chunks: sentences split across reads must still decode.
        var k = 0
        while k < bytes.count {
            let end = min(bytes.count, k + 1021)
            bytes[k..<end].withUnsafeBytes { d.decode($0, onRecord: { fixes.append($0) }, onError: { r.errors[$0.kind, default: 0] += 1 }) }
            k = end
        }
        d.finish(onRecord: { fixes.append($0) }, onError: { r.errors[$0.kind, default: 0] += 1 })
        r.fixes = fixes.count
        var bySecond: [Int64: [LocationFix]] = [:]
        for f in fixes { bySecond[Self.floorSecond(f.timestamp), default: []].append(f) }
        let chk = try String(contentsOf: dir.appendingPathComponent(name + ".chk"), encoding: .utf8)
        for line in chk.split(whereSeparator: \.isNewline) {
            guard line.contains("\"class\":\"TPV\""), let v = try? JSONParser.parse(String(line)),
                let lat = v["lat"]?.doubleValue, let lon = v["lon"]?.doubleValue,
                let time = v["time"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) })
            else { continue }
            r.expected += 1
            let candidates = bySecond[Self.floorSecond(time)] ?? []
            if candidates.contains(where: { abs($0.latitude - lat) <= 1e-6 && abs($0.longitude - lon) <= 1e-6 }) { r.matched += 1 }
        }
        return r
    }

    static func floorSecond(_ t: Timestamp) -> Int64 {
        t.microseconds >= 0 ? t.microseconds / 1_000_000 : (t.microseconds - 999_999) / 1_000_000
    }

    static var logs: [String] {
        guard SharedData.isAvailable,
            let names = try? FileManager.default.contentsOfDirectory(atPath: SharedData.url("gpsd").path)
        else { return [] }
        return names.filter { $0.hasSuffix(".log") && names.contains($0 + ".chk") }.sorted()
    }

    /// The few positions gpsd reports that an NMEA decoder cannot (or should not) reproduce, with why, and how many
    /// of the log's positions we do reproduce.
    static let exceptions: [String: (matched: Int, reason: String)] = [
        "neo-m8n.log": (0, "gpsd moves these fixes to 2034-11-01 (its GPS-week-rollover guess); the RMC sentences say 2015-03-18"),
        "tcp-torture.log": (0, "a deliberately corrupted stream; gpsd dates its one good RMC fix 2027-08-08 by the same rollover guess, the RMC says 2007-12-23"),
        "quectel-l76k-binary.log": (0, "every position is in Quectel's binary protocol; the log has no NMEA position sentence"),
        "ublox8-uniqid-monhw.log": (18, "4 positions come from u-blox UBX binary messages between the NMEA epochs"),
        "ericsson-gru04-02-70sec.log": (289, "2 positions come from Trimble's proprietary $PTNLR sentences, not NMEA position sentences"),
    ]

    @Test(arguments: NMEAGpsdOracleTests.logs)
    func everyPositionGpsdReportedIsReproduced(log: String) throws {
        let r = try Self.check(log)
        if let exception = Self.exceptions[log] {
            #expect(r.matched == exception.matched, "\(log): \(exception.reason)")
        } else {
            #expect(r.matched == r.expected, "\(log): \(r.matched) of \(r.expected) gpsd positions reproduced; errors \(r.errors)")
        }
    }

    @Test func theOracleCoversTheWholeSet() throws {
        var expected = 0, matched = 0
        for name in Self.logs {
            let r = try Self.check(name)
            expected += r.expected
            matched += r.matched
        }
        #expect(Self.logs.count == 77)
        #expect(expected == 3186)
        #expect(matched == 3028)  // every position but the 158 explained above
    }
}
