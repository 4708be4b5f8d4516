#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Ingest
import Testing
import TriggerEngine

/// `TraceFileReader` on inputs that cannot be read twice: the bytes read to tell the format are decoded too.
@Suite struct TraceFileReaderTests {
    /// A pipe holding `bytes` (then closed for writing), opened through `/dev/fd` like `-` or `<(…)`; with `pause`,
    /// the writer sleeps that long after each line, like a live producer.
    static func read(pipe bytes: [UInt8], format: TraceFormat? = nil, pause: Double = 0,
                     opened: (Duration) -> Void = { _ in }) throws -> (TraceFormat, [LocationFix], [IngestError]) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let readFD = fds[0], writeFD = fds[1]
        defer { close(readFD) }
        let writer = Thread {
            let lines = pause > 0 ? bytes.split(separator: 10, omittingEmptySubsequences: false).map { Array($0) + [10] }
                                  : [bytes]
            for line in lines {
                var offset = 0
                line.withUnsafeBytes { b in
                    while offset < b.count {
                        let n = write(writeFD, b.baseAddress! + offset, b.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
            }
            close(writeFD)
        }
        let started = ContinuousClock.now
        writer.start()
        var reader = try TraceFileReader(path: "/dev/fd/\(readFD)", format: format, defaultDevice: "piped") { f, s, d in
            TraceDecoder(format: f, source: s, defaultDevice: d)
        }
        opened(ContinuousClock.now - started)
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        try reader.readAll(onRecord: { fixes.append($0) }, onError: { errors.append($0) })
        #expect(reader.bytesRead == bytes.count + (pause > 0 ? 1 : 0))
        return (reader.format, fixes, errors)
    }

    @Test func aPipeIsDetectedFromItsFirstBytesAndNothingIsLost() throws {
        // Longer than the detection prefix, so detection and reading both have a share.
        let csv = "device,time,lat,lon\n" + (0..<2000).map { "bus-\($0 % 3),\(1_700_000_000 + $0),53.4,-2.9\n" }.joined()
        #expect(csv.utf8.count > TraceFileReader.detectionPrefix)
        let (format, fixes, errors) = try Self.read(pipe: Array(csv.utf8))
        #expect(format == .csv)
        #expect(errors.isEmpty)
        #expect(fixes.count == 2000)
        #expect(fixes.first?.device == "bus-0" && fixes.first?.timestamp == Timestamp(microseconds: 1_700_000_000_000_000))
    }

    @Test(arguments: [
        "device,time,lat,lon\n",
        "",  // NDJSON: the first object closes on the first line
    ])
    func aSlowLiveProducerIsNotHeldBackUntilKilobytesGather(header: String) throws {
        // 40 lines, one every 50 ms: 2 s in all and far less than the 8 KiB detection prefix.
        let rows = (0..<40).map { k in
            header.isEmpty ? #"{"device":"v","timestamp":\#(1_700_000_000 + k),"latitude":53.4,"longitude":-2.9}"#
                : "v,\(1_700_000_000 + k),53.4,-2.9"
        }
        var openedAfter: Duration?
        let (format, fixes, errors) = try Self.read(pipe: Array((header + rows.joined(separator: "\n")).utf8), pause: 0.05) {
            openedAfter = $0
        }
        #expect(format == (header.isEmpty ? .ndjson : .csv))
        #expect(errors.isEmpty && fixes.count == 40)
        let opened = try #require(openedAfter)
        #expect(opened < .seconds(1), "the format was decided after \(opened)")
    }

    @Test func aPipedGPXFileIsOneDeviceNamedByTheDefault() throws {
        let gpx = #"<?xml version="1.0"?><gpx><trk><name>ACTIVE LOG</name><trkseg><trkpt lat="1" lon="2"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"#
        let (format, fixes, _) = try Self.read(pipe: Array(gpx.utf8))
        #expect(format == .gpx)
        #expect(fixes.map(\.device) == ["piped"])
    }

    @Test func anEmptyPipeCannotBeTold() {
        let error = #expect(throws: TraceFileReader.OpenError.self) { _ = try Self.read(pipe: []) }
        #expect(error?.reason.hasPrefix("empty") == true)
    }

    @Test func prosePipedInCannotBeTold() {
        let error = #expect(throws: TraceFileReader.OpenError.self) { _ = try Self.read(pipe: Array("hello\nworld\n".utf8)) }
        #expect(error?.reason.contains("cannot tell the trace format") == true)
    }
}
