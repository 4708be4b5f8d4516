import Ingest
import Testing
import TestSupport
import TriggerEngine

@Suite struct OwnTracksDecoderTests {
    let decoder = OwnTracksDecoder(source: "owntracks.json")

    /// Runs the OwnTracks decoder and also collects the ignored messages.
    static func run(_ d: OwnTracksDecoder, _ bytes: [UInt8], chunkSize: Int? = nil)
        -> (Decoded, [OwnTracksIgnoredMessage], OwnTracksDecoder)
    {
        var d = d
        var out = Decoded()
        var ignored: [OwnTracksIgnoredMessage] = []
        let size = max(1, chunkSize ?? max(bytes.count, 1))
        var start = 0
        bytes.withUnsafeBytes { all in
            repeat {
                let end = min(start + size, all.count)
                d.decode(UnsafeRawBufferPointer(rebasing: all[start..<end]), onRecord: { out.fixes.append($0) },
                         onIgnored: { ignored.append($0) }, onError: { out.errors.append($0) })
                start = end
            } while start < all.count
        }
        d.finish(onRecord: { out.fixes.append($0) }, onIgnored: { ignored.append($0) }, onError: { out.errors.append($0) })
        return (out, ignored, d)
    }

    // MARK: The upstream schema's own test messages (shared data)

    struct Expectation: CustomTestStringConvertible {
        var file: String
        var type: String
        var valid: Bool
        var testDescription: String { "\(file) (\(type)) \(valid ? "valid" : "invalid")" }
    }

    static func expectations() -> [Expectation] {
        guard SharedData.isAvailable, let csv = try? SharedData.bytes("owntracks/expected-validation.csv") else { return [] }
        // The file has CRLF line ends.
        return String(decoding: csv, as: UTF8.self).split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
            let cells = line.split(separator: ",", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard cells.count >= 4, cells[3] == "valid" || cells[3] == "invalid" else { return nil }
            return Expectation(file: cells[0], type: cells[1], valid: cells[3] == "valid")
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func theOracleListsFiftyNineMessages() {
        #expect(Self.expectations().count == 59)
    }

    /// Every message of owntracks/json-schema's test suite is accepted or rejected as check-jsonschema does.
    /// Deliberate differences: none in outcome. Two things go beyond the schema without changing an outcome here:
    /// a location without `tid`/`topic` needs the decoder's default device (the schema does not require one, the
    /// engine does), so the oracle runs with one; and `acc: -1` (l2.json, valid) is read as "accuracy unknown" rather
    /// than passed on as a negative accuracy the engine would refuse.
    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"), arguments: expectations())
    func upstreamMessageIsAcceptedOrRejectedAsTheSchemaSays(_ e: Expectation) throws {
        let bytes = try SharedData.bytes("owntracks/" + e.file)
        let (out, ignored, _) = Self.run(OwnTracksDecoder(source: e.file, defaultDevice: "phone"), bytes)
        #expect(out.errors.isEmpty == e.valid, "\(out.errors.map(\.description))")
        if e.valid {
            // Every message is accounted for: a fix for each location, an ignored entry for everything else.
            let locations = e.type == "location" ? 1 : e.type == "array[2]" ? 1 : 0
            #expect(out.fixes.count == locations)
            #expect(ignored.count == (e.type == "array[2]" ? 1 : e.type.hasPrefix("array") || e.type == "location" ? 0 : 1))
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func aFileOfOnlyNewlinesHoldsNothingAndIsNoError() throws {
        let (out, ignored, _) = Self.run(decoder, try SharedData.bytes("owntracks/messages/array-nothing.json"))
        #expect(out == Decoded() && ignored.isEmpty)
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func upstreamLocationFieldsAreRead() throws {
        let (out, _, _) = Self.run(decoder, try SharedData.bytes("owntracks/messages/location-5s.json"))
        let fix = try #require(out.fixes.first)
        #expect(fix.device == "SG" && fix.timestamp == Timestamp(microseconds: 1_701_263_310_000_000))
        #expect(fix.latitude == 53.430722 && fix.longitude == 5.112126)
        #expect(fix.horizontalAccuracy == 9 && fix.altitude == 93 && fix.course == 252)
        #expect(approximately(fix.speed, 1 / 3.6))
    }

    // MARK: Locations

    @Test func locationBecomesAFixWithVelocityInMetresPerSecond() throws {
        let (out, _, _) = Self.run(decoder, Array("""
            {"_type":"location","tid":"JJ","lat":48.85833,"lon":2.29513,"tst":1497476456,"acc":12,"alt":35,"vel":36,"cog":90}
            """.utf8))
        let fix = try #require(out.fixes.first)
        #expect(fix.device == "JJ" && fix.timestamp == Timestamp(microseconds: 1_497_476_456_000_000))
        #expect(fix.horizontalAccuracy == 12 && fix.altitude == 35 && fix.course == 90)
        #expect(approximately(fix.speed, 10))
    }

    @Test func theTopicNamesTheDeviceBeforeTidAndTheDefault() {
        let text = """
            {"_type":"location","topic":"owntracks/jane/phone","tid":"JP","lat":1,"lon":2,"tst":1}
            {"_type":"location","tid":"JP","lat":1,"lon":2,"tst":1}
            {"_type":"location","lat":1,"lon":2,"tst":1}
            """
        let (out, _, _) = Self.run(OwnTracksDecoder(source: "x", defaultDevice: "fallback"), Array(text.utf8))
        #expect(out.fixes.map(\.device) == ["jane/phone", "JP", "fallback"])
    }

    @Test func negativeAccuracyMeansUnknown() {
        let (out, _, _) = Self.run(decoder, Array(#"{"_type":"location","tid":"a","lat":1,"lon":2,"tst":1,"acc":-1}"#.utf8))
        #expect(out.errors.isEmpty && out.fixes.first?.horizontalAccuracy == nil)
    }

    @Test(arguments: [
        (#"{"_type":"location","tid":"a","lon":2,"tst":1}"#, "missing-field", "lat" as String?),
        (#"{"_type":"location","tid":"a","lat":"1","lon":2,"tst":1}"#, "wrong-type", "lat"),
        (#"{"_type":"location","tid":"a","lat":1,"lon":2,"tst":1.5}"#, "wrong-type", "tst"),
        (#"{"_type":"location","tid":"a","lat":1,"lon":2,"tst":"1"}"#, "wrong-type", "tst"),
        (#"{"_type":"location","tid":"a","lat":91,"lon":2,"tst":1}"#, "latitude-out-of-range", "lat"),
        (#"{"_type":"location","tid":"a","lat":1,"lon":200,"tst":1}"#, "longitude-out-of-range", "lon"),
        (#"{"_type":"location","lat":1,"lon":2,"tst":1}"#, "missing-device", "tid"),
        (#"{"tid":"a","lat":1,"lon":2,"tst":1}"#, "missing-type", "_type"),
        (#"{"_type":7}"#, "wrong-type", "_type"),
        (#"{"_type":"teleport"}"#, "invalid-message", "_type"),
        (#"{"_type":"transition","event":"enter","lat":"61.1","lon":9,"tst":1,"wtst":1,"acc":6}"#, "wrong-type", "lat"),
        (#"{"_type":"cmd","action":"selfDestruct"}"#, "invalid-message", "action"),
        (#"{"_type":"lwt"}"#, "missing-field", "tst"),
        (#"{"_type":"location","tid":"a","lat":1,"lon":2,"tst":9.5e12}"#, "invalid-timestamp", "tst"),
        (#"{"_type":"location","lat":1,"lon":2,"tst":01}"#, "malformed-json", nil),
        (#""location""#, "wrong-type", nil),
    ])
    func everyInvalidMessageIsOneErrorWithKindAndField(text: String, kind: String, field: String?) throws {
        let (out, ignored, _) = Self.run(decoder, Array(("{\"_type\":\"lwt\",\"tst\":1}\n" + text + "\n").utf8))
        #expect(ignored.count == 1)
        let e = try #require(out.errors.first)
        #expect(out.errors.count == 1)
        #expect(e.kind == kind)
        #expect(e.field == field)
        #expect(e.line == 2)
    }

    @Test func otherMessageTypesAreCountedAsIgnoredByType() {
        let text = """
            {"_type":"transition","event":"leave","lat":1,"lon":2,"tst":3,"wtst":4,"acc":5,"t":"b","desc":"blukii"}
            {"_type":"waypoint","desc":"home","lat":1,"lon":2,"rad":50,"tst":3}
            [{"_type":"lwt","tst":1},{"_type":"card","name":"Jane"}]
            """
        let (out, ignored, d) = Self.run(decoder, Array(text.utf8))
        #expect(out == Decoded())
        #expect(ignored.map(\.type) == ["transition", "waypoint", "lwt", "card"])
        #expect(ignored.map(\.line) == [1, 2, 3, 3])
        #expect(d.ignoredCount == 4 && d.ignoredTypes == ["transition": 1, "waypoint": 1, "lwt": 1, "card": 1])
    }

    @Test func aTruncatedLineIsReportedAndTheNextLineStillDecodes() {
        let text = """
            {"_type":"location","tid":"a","lat":1,"lon":2,"tst":1
            {"_type":"location","tid":"a","lat":1,"lon":2,"tst":2}
            """
        let (out, _, _) = Self.run(decoder, Array(text.utf8))
        #expect(out.kinds == ["malformed-json"])
        #expect(out.errors.first?.line == 1)
        #expect(out.fixes.map(\.timestamp.microseconds) == [2_000_000])
    }

    @Test(arguments: chunkings)
    func chunkBoundariesDoNotChangeTheOutput(chunkSize: Int?) {
        let text = """
            \u{FEFF}{
                "_type" : "location", "tid" : "C1", "lat" : 52.195913, "lon" : 7.688245, "tst" : 1699882482,
                "desc" : "a \\"quoted\\" } brace"
            }
            [ {"_type": "location", "lat": 8, "lon": 9, "tst": 1000, "topic": "owntracks/u/d"}, {"_type": "lwt", "tst": 1000} ]
            garbage here
            {"_type":"location","tid":"x","lat":95,"lon":1,"tst":5}
            """
        let whole = Self.run(decoder, Array(text.utf8))
        #expect(whole.0.fixes.map(\.device) == ["C1", "u/d"])
        #expect(whole.0.kinds == ["malformed-json", "latitude-out-of-range"])
        #expect(whole.0.errors.map(\.line) == [6, 7])
        let split = Self.run(decoder, Array(text.utf8), chunkSize: chunkSize)
        #expect(split.0 == whole.0 && split.1 == whole.1)
    }

    @Test func hostileBytesNeverCrash() {
        for seed in 1...30 as ClosedRange<UInt64> {
            let bytes = hostileBytes(count: 3000, seed: seed)
            #expect(Self.run(decoder, bytes, chunkSize: 5).0 == Self.run(decoder, bytes).0, "seed \(seed)")
        }
    }
}
