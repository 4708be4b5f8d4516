import Ingest
import Testing
import TestSupport
import TriggerEngine

@Suite struct TraceFormatDetectionTests {
    @Test(arguments: [
        ("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">", "track.dat", TraceFormat.gpx as TraceFormat?),
        ("\u{FEFF}<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">", "x", .gpx),
        ("$GPRMC,125106,V,3854.5087,N,07726.4523,W,0.0,0.0,241011,10.5,W,S*28\r\n", "x.txt", .nmea),
        ("# Name: Garmin GPSmap 76S\n# Date: 2011-10-24\n$GPGGA,125106,3854.5087,N", "GPSmap-76S.log", .nmea),
        ("!AIVDM,1,1,,A,13u?etPv2;0n:dDPwUM1U1Cb069D,0*24\n", "ais", .nmea),
        ("{\"_type\":\"location\",\"lat\":1,\"lon\":2,\"tst\":3}\n", "x.json", .owntracks),
        ("[\n {\"_type\": \"lwt\", \"tst\": 1000}]", "x.json", .owntracks),
        ("[{\"id\":1,\"deviceId\":10,\"fixTime\":\"2024-05-20T14:29:55Z\"}]", "positions.json", .traccar),
        ("{\"position\":{\"latitude\":1},\"device\":{\"uniqueId\":\"x\"}}", "x", .traccar),
        ("{\"device\":\"a\",\"timestamp\":1,\"latitude\":1,\"longitude\":2}\n", "x.txt", .ndjson),
        ("\"id\",\"vehicle_id\",\"timestamp\",\"latitude\"\n1,2,3,4\n", "x.dat", .csv),
        ("time;lat;lon\n", "x", .csv),
        ("", "walk.gpx", .gpx),
        ("", "fixes.jsonl", .ndjson),
        ("hello", "notes.txt", nil),
        ("# only a comment\n", "x", nil),
    ])
    func contentFirstThenExtension(prefix: String, fileName: String, expected: TraceFormat?) {
        #expect(TraceFormat.detect(prefix: Array(prefix.utf8), fileName: fileName) == expected)
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"), arguments: [
        ("traces/route14_outbound.csv", TraceFormat.csv),
        ("gpsd/GPSmap-76S.log", .nmea),
        ("gpx/Mojstrovka.gpx", .gpx),
        ("owntracks/messages/l.json", .owntracks),
        ("owntracks/messages/array.json", .owntracks),
    ])
    func sharedFilesAreRecognisedByTheirFirstKilobytes(path: String, expected: TraceFormat) throws {
        let prefix = Array(try SharedData.bytes(path).prefix(4096))
        #expect(TraceFormat.detect(prefix: prefix, fileName: "unnamed") == expected)
    }

    @Test func theFacadeDecodesLikeTheConcreteDecoder() throws {
        let csv = "device,time,lat,lon\na,1,2,3\nb,2,95,3\n"
        let facade = try #require(TraceDecoder(format: .csv, source: "t.csv"))
        for chunkSize in chunkings {
            #expect(decode(facade, csv, chunkSize: chunkSize) == decode(CSVFixDecoder(source: "t.csv"), csv))
        }
        let ndjson = #"{"device":"a","timestamp":1,"latitude":1,"longitude":2}"#
        let n = try #require(TraceDecoder(format: .ndjson, source: "t"))
        #expect(decode(n, ndjson).fixes.count == 1)
    }

    @Test func everyFormatHasADecoder() {
        for format in TraceFormat.allCases { #expect(TraceDecoder(format: format, source: "x") != nil) }
    }

    @Test func theFacadeReportsIgnoredMessages() throws {
        var d = try #require(TraceDecoder(format: .owntracks, source: "x"))
        Array(#"{"_type":"lwt","tst":1}"#.utf8).withUnsafeBytes { d.decode($0, onRecord: { _ in }, onError: { _ in }) }
        d.finish(onRecord: { _ in }, onError: { _ in })
        #expect(d.ignoredCount == 1)
    }
}
