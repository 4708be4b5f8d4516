#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Ingest
import Synchronization
import Testing
import TestSupport
import TriggerEngine

/// `TraceFileReader` on inputs that cannot be read twice: the bytes read to tell the format are decoded too.
@Suite struct TraceFileReaderTests {
    /// A pipe holding `bytes` (then closed for writing), opened through `/dev/fd` like `-` or `<(…)`. With
    /// `holdAfter` lines, the writer writes those lines one by one, like a live producer, then stops until the
    /// reader has decided the format: `openedWhileHeld` says whether it did so on those lines alone (a reader
    /// waiting for more would wait until `eventuallyBlocking` lets the writer go on: a hang's bound, not a clock).
    static func read(pipe bytes: [UInt8], format: TraceFormat? = nil, holdAfter: Int? = nil) throws
        -> (format: TraceFormat, fixes: [LocationFix], errors: [IngestError], openedWhileHeld: Bool) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let readFD = fds[0], writeFD = fds[1]
        defer { close(readFD) }
        let opened = Atomic(false), writerWaited = Atomic(false)
        let writer = Thread {
            let lines = holdAfter != nil ? bytes.split(separator: 10, omittingEmptySubsequences: false).map { Array($0) + [10] }
                                         : [bytes]
            for (k, line) in lines.enumerated() {
                if k == holdAfter {
                    writerWaited.store(eventuallyBlocking { opened.load(ordering: .acquiring) }, ordering: .releasing)
                }
                var offset = 0
                line.withUnsafeBytes { b in
                    while offset < b.count {
                        let n = write(writeFD, b.baseAddress! + offset, b.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
            }
            close(writeFD)
        }
        writer.start()
        var reader = try TraceFileReader(path: "/dev/fd/\(readFD)", format: format, defaultDevice: "piped") { f, s, d in
            TraceDecoder(format: f, source: s, defaultDevice: d)
        }
        opened.store(true, ordering: .releasing)
        var fixes: [LocationFix] = [], errors: [IngestError] = []
        try reader.readAll(onRecord: { fixes.append($0) }, onError: { errors.append($0) })
        #expect(reader.bytesRead == bytes.count + (holdAfter != nil ? 1 : 0))
        return (reader.format, fixes, errors, writerWaited.load(ordering: .acquiring))
    }

    @Test func aPipeIsDetectedFromItsFirstBytesAndNothingIsLost() throws {
        // Longer than the detection prefix, so detection and reading both have a share.
        let csv = "device,time,lat,lon\n" + (0..<2000).map { "bus-\($0 % 3),\(1_700_000_000 + $0),53.4,-2.9\n" }.joined()
        #expect(csv.utf8.count > TraceFileReader.detectionPrefix)
        let (format, fixes, errors, _) = try Self.read(pipe: Array(csv.utf8))
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
        // 40 lines, far less than the 8 KiB detection prefix.
        let rows = (0..<40).map { k in
            header.isEmpty ? #"{"device":"v","timestamp":\#(1_700_000_000 + k),"latitude":53.4,"longitude":-2.9}"#
                : "v,\(1_700_000_000 + k),53.4,-2.9"
        }
        // The first line (the header and one row for CSV) is all a live producer has written when it pauses.
        let held = header.isEmpty ? 1 : 2
        let read = try Self.read(pipe: Array((header + rows.joined(separator: "\n")).utf8), holdAfter: held)
        #expect(read.format == (header.isEmpty ? .ndjson : .csv))
        #expect(read.errors.isEmpty && read.fixes.count == 40)
        #expect(read.openedWhileHeld, "the format was decided only after more than \(held) line(s)")
    }

    @Test func aPipedGPXFileIsOneDeviceNamedByTheDefault() throws {
        let gpx = #"<?xml version="1.0"?><gpx><trk><name>ACTIVE LOG</name><trkseg><trkpt lat="1" lon="2"><time>2026-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"#
        let (format, fixes, _, _) = try Self.read(pipe: Array(gpx.utf8))
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
