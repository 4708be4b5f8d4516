import Beacons
import Benchmark
import Ingest
import TriggerEngine

/// Each input decoder on its own: bytes in, fixes or beacon frames out.
enum DecoderBenchmarks {
    static func register() {
        for (name, format) in [("NDJSON", Fixtures.Lines.ndjson), ("CSV", .csv), ("NMEA", .nmea)] {
            // 1,000 lines per pass; a measured iteration decodes the same chunk `scaledIterations / 1,000` times.
            Benchmark("Decode.\(name)") { benchmark, chunk in
                var count = 0
                for _ in 0..<max(1, benchmark.scaledIterations.count / 1_000) {
                    count += Fixtures.decode(chunk, as: format)
                }
                blackHole(count)
            } setup: {
                Fixtures.trace(lines: 1_000, as: format)
            }
        }

        let decoder = BeaconFrameDecoder()
        Benchmark("Decode.beaconAdvertisements") { benchmark, ads in
            var decoded = 0
            for k in benchmark.scaledIterations where decoder.decode(ads[k % ads.count]) != nil { decoded += 1 }
            blackHole(decoded)
        } setup: {
            Fixtures.advertisements()
        }

        Benchmark("Decode.hciAdvertisingReports") { benchmark, events in
            var reports = 0
            for k in benchmark.scaledIterations {
                reports += (try? HCIEventParser.advertisingReports(inEvent: events[k % events.count]))?.count ?? 0
            }
            blackHole(reports)
        } setup: {
            Fixtures.hciEvents()
        }
    }
}
