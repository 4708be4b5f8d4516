#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Ingest
import Testing
import TriggerEngine

/// `TraceFileReader` on inputs that cannot be read twice: the bytes read to tell the format are decoded too.
@Suite struct TraceFileReaderTests {
    /// A pipe holding `bytes` (then closed for writing), opened through `/dev/fd` like `-` or `<(…)`.
    static func read(pipe bytes: [UInt8], format: TraceFormat? = nil) throws -> (TraceFormat, [LocationFix], [IngestError]) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let readFD = fds[0], writeFD = fds[1]
        defer { close(readFD) }
        let writer = Thread {
            var offset = 0
            bytes.withUnsafeBytes { b in
                while offset < b.count {
                    let n = write(writeFD, b.baseAddress! + offset, b.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(writeFD)
        }
        writer.start()
        var reader = try TraceFileReader(path: "/dev/fd/\(readFD)", format: format, defaultDevice: "piped") { f, s, d in
            TraceDecoder(format: f, source: s, defaultDevice: d)
        }
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        try reader.readAll(onFix: { fixes.append($0) }, onError: { errors.append($0) })
        #expect(reader.bytesRead == bytes.count)
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
