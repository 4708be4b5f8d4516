import Testing
import TriggerEngine
import TestSupport
@testable import Beacons

/// No input crashes a parser or reads out of bounds: random bytes, every truncation and bit flips of real vectors.
@Suite struct RobustnessTests {
    static func corpus() -> [[UInt8]] {
        var seeds: [[UInt8]] = [HCIEventParserTests.captureEvent]
        if BeaconData.isAvailable, let vectors = try? BeaconData.vectors() { seeds += vectors.map(\.bytes) }
        return seeds
    }

    func exercise(_ b: [UInt8], _ decoder: BeaconFrameDecoder) {
        _ = decoder.decode(b)
        _ = Array(AdvertisingData(b))
        _ = decoder.decode(AdvertisingData(scanRecord: b))
        _ = try? HCIEventParser.advertisingReports(inPacket: b)
        _ = try? HCIEventParser.advertisingReports(inEvent: b)
        if let e = b.first, b.count > 1 { _ = EddystoneTLM(frame: b[1...]); _ = e }
        _ = EddystoneURL.expand(b)
    }

    @Test func everyPrefixAndSuffixOfEveryVector() {
        let d = BeaconFrameDecoder(altBeaconCodes: [0xBEAC, 0xAABB, 0x1234])
        for v in Self.corpus() {
            for n in 0...v.count {
                exercise(Array(v[0..<n]), d)
                exercise(Array(v[n...]), d)
            }
        }
    }

    @Test func bitFlipsOfEveryVector() {
        var rng = SplitMix(seed: 1)
        let d = BeaconFrameDecoder()
        for v in Self.corpus() where !v.isEmpty {
            for _ in 0..<300 {
                var b = v
                for _ in 0...Int.random(in: 0...3, using: &rng) {
                    b[Int.random(in: 0..<b.count, using: &rng)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &rng)
                }
                exercise(b, d)
            }
        }
    }

    @Test func randomBytes() {
        var rng = SplitMix(seed: 42)
        let d = BeaconFrameDecoder()
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...80, using: &rng)
            var b = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Make a third of them look like LE Meta events so the report parser gets past the framing.
            if n > 4, Bool.random(using: &rng) { b[0] = 0x3E; b[1] = UInt8(n - 2); b[2] = Bool.random(using: &rng) ? 0x02 : 0x0D }
            exercise(b, d)
        }
    }

    @Test func randomBTSnoopFiles() throws {
        var rng = SplitMix(seed: 7)
        let w = BTSnoopWriter(datalink: .linuxMonitor)
        for k in 0..<20 {
            try w.appendEvent(HCIEventParserTests.captureEvent.dropFirst(), timestamp: Timestamp(microseconds: Int64(k)))
        }
        let good = w.bytes
        for _ in 0..<2000 {
            var b = good
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            b.removeLast(Int.random(in: 0...30, using: &rng))
            guard let r = try? BTSnoopReader(bytes: b) else { continue }
            var pipeline = BeaconScanPipeline(observer: "fuzz")
            _ = try? pipeline.replay(r) { _ in }
        }
    }
}
