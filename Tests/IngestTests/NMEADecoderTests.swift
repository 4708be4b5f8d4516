import Testing
import TriggerEngine
@testable import Ingest

@Suite struct NMEADecoderTests {
    func decode(_ text: String) -> (fixes: [LocationFix], errors: [IngestError]) {
        var d = NMEADecoder(source: "t.nmea", defaultDevice: "gps")
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        Array(text.utf8).withUnsafeBytes { d.decode($0, onRecord: { fixes.append($0) }, onError: { errors.append($0) }) }
        d.finish(onRecord: { fixes.append($0) }, onError: { errors.append($0) })
        return (fixes, errors)
    }

    @Test func sentencesOfOneEpochMergeIntoOneFix() throws {
        let r = decode("""
            $GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A
            $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
            $GPGST,123519,1.0,2.0,1.5,30.0,3.0,4.0,5.0*42

            """)
        #expect(r.errors.isEmpty, "\(r.errors)")
        let f = try #require(r.fixes.first)
        #expect(r.fixes.count == 1)
        #expect(f.timestamp == Timestamp(rfc3339: "1994-03-23T12:35:19Z"))
        #expect(abs(f.latitude - 48.1173) < 1e-9 && abs(f.longitude - 11.516666666) < 1e-6)
        #expect(abs(f.speed! - 22.4 * 1852 / 3600) < 1e-9)
        #expect(f.altitude == 545.4)
        #expect(f.horizontalAccuracy == 5)  // GST σlat 3, σlon 4 → 5 m, preferred over HDOP
    }

    @Test func badChecksumIsAnErrorAndNoFixSentencesAreIgnored() {
        let r = decode("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48\r\n$GPRMC,123520,V,,,,,,,230394,,*00\r\n")
        #expect(r.errors.map(\.kind).contains("bad-checksum"))
        #expect(r.fixes.isEmpty)
    }

    @Test func positionsBeforeTheFirstDateWaitForIt() {
        let r = decode("""
            $GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,
            $GPRMC,000001,A,4807.038,N,01131.000,E,0,0,240394,,
            $GPGGA,000002,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,

            """)
        #expect(r.errors.isEmpty, "\(r.errors)")
        // The 23:59:59 fix got the day before the RMC's date; the rest the RMC's.
        #expect(r.fixes.map(\.timestamp.rfc3339) == ["1994-03-23T23:59:59Z", "1994-03-24T00:00:01Z", "1994-03-24T00:00:02Z"])
    }

    @Test func dateRollsOverAtMidnightWithoutANewRMC() {
        let r = decode("""
            $GPRMC,235958,A,4807.038,N,01131.000,E,0,0,311299,,
            $GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,
            $GPGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,

            """)
        #expect(r.fixes.map(\.timestamp.rfc3339) == ["1999-12-31T23:59:58Z", "1999-12-31T23:59:59Z", "2000-01-01T00:00:00Z"])
    }

    @Test func binaryNoiseAroundSentencesIsSkipped() {
        var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF, 0x24, 0x00]  // UBX-looking noise, a stray '$'
        bytes += Array("garbage$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n".utf8)
        bytes += (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var d = NMEADecoder(source: "t", defaultDevice: "gps")
        var fixes = 0
        bytes.withUnsafeBytes { d.decode($0, onRecord: { _ in fixes += 1 }, onError: { _ in }) }
        d.finish(onRecord: { _ in fixes += 1 }, onError: { _ in })
        #expect(fixes == 1)
    }

    @Test func hostileBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let seed = Array("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)
        for _ in 0..<3000 {
            var b = seed
            for _ in 0..<Int.random(in: 1...8, using: &rng) { b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = decode(String(decoding: b.prefix(Int.random(in: 0...b.count, using: &rng)), as: UTF8.self))
        }
    }
}
