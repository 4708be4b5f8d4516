import JSON
import Ingest
import TestSupport
import Testing
import TriggerEngine

@Suite struct NDJSONFixDecoderTests {
    let decoder = NDJSONFixDecoder(source: "fixes.ndjson")

    @Test func specFieldsBecomeAFix() throws {
        let out = decode(decoder, """
            {"device":"truck-12","timestamp":"2026-11-20T09:15:02.5+01:00","latitude":52.52,"longitude":13.405,\
            "horizontalAccuracy":8,"altitude":34.5,"speed":12.25,"course":271}

            """)
        #expect(out.errors.isEmpty)
        let fix = try #require(out.fixes.first)
        #expect(fix == LocationFix(device: "truck-12", timestamp: ts("2026-11-20T08:15:02.5Z")!, latitude: 52.52,
                                   longitude: 13.405, horizontalAccuracy: 8, altitude: 34.5, speed: 12.25, course: 271))
    }

    @Test func unixSecondsAndMillisecondsAreTellApartAt1e11() {
        let out = decode(decoder, """
            {"device":"a","timestamp":1700000000,"latitude":1,"longitude":2}
            {"device":"a","timestamp":1700000000123,"latitude":1,"longitude":2}
            {"device":"a","timestamp":1700000000.25,"latitude":1,"longitude":2}
            """)
        #expect(out.fixes.map(\.timestamp.microseconds) == [1_700_000_000_000_000, 1_700_000_000_123_000,
                                                             1_700_000_000_250_000])
    }

    @Test func blankLinesAreSkippedButCounted() {
        let out = decode(decoder, "\n  \n{\"device\":\"a\",\"timestamp\":1,\"latitude\":91,\"longitude\":0}\r\n\n")
        #expect(out.fixes.isEmpty)
        #expect(out.errors.map(\.line) == [3])
    }

    @Test func missingDeviceTakesTheDefaultDevice() {
        let out = decode(NDJSONFixDecoder(source: "bus7.ndjson", defaultDevice: "bus7"),
                         #"{"timestamp":1,"latitude":1,"longitude":2}"#)
        #expect(out.fixes.map(\.device) == ["bus7"])
    }

    @Test func missingDeviceWithoutDefaultIsAnError() throws {
        let out = decode(decoder, #"{"timestamp":1,"latitude":1,"longitude":2}"#)
        let e = try #require(out.errors.first)
        #expect(e.kind == "missing-device" && e.field == "device" && e.line == 1 && e.source == "fixes.ndjson")
    }

    @Test(arguments: [
        (#"{"device":"a","timestamp":1,"latitude":1,,"longitude":2}"#, "malformed-json", nil as String?),
        (#"{"device":"a","timestamp":1,"longitude":2}"#, "missing-field", "latitude"),
        (#"{"device":"a","timestamp":1,"latitude":1}"#, "missing-field", "longitude"),
        (#"{"device":"a","latitude":1,"longitude":2}"#, "missing-field", "timestamp"),
        (#"{"device":"a","timestamp":1,"latitude":90.5,"longitude":2}"#, "latitude-out-of-range", "latitude"),
        (#"{"device":"a","timestamp":1,"latitude":1,"longitude":-180.1}"#, "longitude-out-of-range", "longitude"),
        (#"{"device":"a","timestamp":1,"latitude":1e999,"longitude":2}"#, "not-a-number", "latitude"),
        (#"{"device":"a","timestamp":1,"latitude":1,"longitude":2,"horizontalAccuracy":-3}"#, "invalid-accuracy",
         "horizontalAccuracy"),
        (#"{"device":"a","timestamp":"yesterday","latitude":1,"longitude":2}"#, "invalid-timestamp", "timestamp"),
        (#"{"device":"a","timestamp":"2026-02-30T00:00:00Z","latitude":1,"longitude":2}"#, "invalid-timestamp",
         "timestamp"),
        (#"{"device":"a","timestamp":1e300,"latitude":1,"longitude":2}"#, "invalid-timestamp", "timestamp"),
        (#"{"device":"a","timestamp":1,"latitude":"52.1","longitude":2}"#, "wrong-type", "latitude"),
        (#"{"device":"a","timestamp":1,"latitude":1,"longitude":2,"speed":[1]}"#, "wrong-type", "speed"),
        (#"{"device":{"id":1},"timestamp":1,"latitude":1,"longitude":2}"#, "wrong-type", "device"),
        (#"[1,2]"#, "wrong-type", nil),
        (#"{"device":"a","timestamp":1,"latitude":01,"longitude":2}"#, "malformed-json", nil),
    ])
    func everyBadLineIsOneErrorWithKindAndField(line: String, kind: String, field: String?) throws {
        let good = #"{"device":"ok","timestamp":1,"latitude":0,"longitude":0}"#
        let out = decode(decoder, good + "\n" + line + "\n")
        #expect(out.fixes.count == 1)
        let e = try #require(out.errors.first)
        #expect(out.errors.count == 1)
        #expect(e.kind == kind)
        #expect(e.field == field)
        #expect(e.line == 2)
        #expect(e.offset == good.utf8.count + 1)  // offsets count from the start of the input
    }

    @Test func malformedJSONReportsTheByteWithinTheLine() throws {
        let out = decode(decoder, #"{"device":"a","latitude" 1}"#)
        let e = try #require(out.errors.first)
        #expect(e.kind == "malformed-json")
        #expect(e.reason.contains("at byte 25 of the line"))
    }

    @Test func escapesAndNestedValuesTakeTheFullParserWithTheSameResult() {
        let plain = decode(decoder, #"{"device":"dev-1","timestamp":1,"latitude":1.5,"longitude":2.5}"#)
        let escaped = decode(decoder, #"{"device":"dev\u002d1","timestamp":1,"latitude":1.5,"longitude":2.5}"#)
        let nested = decode(decoder,
                            #"{"meta":{"a":[1,{"b":null}]},"device":"dev-1","timestamp":1,"latitude":1.5,"longitude":2.5}"#)
        #expect(plain.fixes.count == 1)
        #expect(escaped == plain)
        #expect(nested == plain)
    }

    /// The fast path checks strings eight bytes at a time: an escape or control character at any position, near
    /// either end of a word, must still send the line to the full parser.
    @Test(arguments: 0..<20)
    func escapesAndControlCharactersAreSeenAtEveryPositionInAString(position: Int) throws {
        var name = Array("abcdefghijklmnopqrst".utf8)
        name.insert(contentsOf: Array(#"\""#.utf8), at: position)
        let escaped = decode(decoder, #"{"device":""# + String(decoding: name, as: UTF8.self)
                             + #"","timestamp":1,"latitude":1,"longitude":2}"#)
        var expected = Array("abcdefghijklmnopqrst".utf8)
        expected.insert(34, at: position)
        #expect(escaped.fixes.map(\.device) == [String(decoding: expected, as: UTF8.self)])

        var raw = Array("abcdefghijklmnopqrst".utf8)
        raw.insert(1, at: position)
        let control = decode(decoder, #"{"device":""# + String(decoding: raw, as: UTF8.self)
                             + #"","timestamp":1,"latitude":1,"longitude":2}"#)
        #expect(control.kinds == ["malformed-json"])
    }

    /// Whatever the fast path does, a line is malformed exactly when the full JSON parser rejects it.
    @Test func aLineIsMalformedExactlyWhenTheJSONParserRejectsIt() throws {
        let template = Array(#"{"device":"truck-12","timestamp":"2026-11-20T08:15:02Z","latitude":52.52,"longitude":13.4,"speed":1e1,"x":[true,null,{"a":[],"b":{}}],"y":{"k":-0.5e-3,"l":[[1],"s"]}}"#.utf8)
        let inserts = Array("{}[]\",:0-.eE \u{1}tfn".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<6000 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            var line = template
            let at = Int(state % UInt64(line.count))
            if state & 0x100 == 0 {
                line.insert(inserts[Int(state >> 20) % inserts.count], at: at)
            } else {
                line.remove(at: at)
            }
            let parserAccepts = (try? JSONParser.parse(line)) != nil
            let out = decode(decoder, line)
            #expect(out.kinds.contains("malformed-json") == !parserAccepts, "\(String(decoding: line, as: UTF8.self))")
            #expect(out.fixes.count + out.errors.count == 1)
        }
    }

    /// A line read right after one of the same shape goes through that line's layout (`FixLayout`): whatever was
    /// changed in it (a byte inserted or removed anywhere, a value replaced), it gives exactly what it gives read
    /// alone by a fresh decoder, key by key: the same fix, or an error of the same kind and reason.
    @Test func aLineReadThroughTheLastLinesLayoutGivesWhatItGivesReadAlone() throws {
        let template = Array(#"{"device":"truck-12","timestamp":"2026-11-20T08:15:02Z","latitude":52.52,"longitude":13.4,"horizontalAccuracy":5,"speed":1e1,"x":[true,null],"y":"s","z":false}"#.utf8)
        let inserts = Array("{}[]\",:0-.eE \u{1}tfnx".utf8)
        let values = ["0", "-91", "\"a\"", "null", "true", "[1]", "{}", "1.5", "\"2026-11-20T08:15:03Z\"", "1e400"].map { Array($0.utf8) }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var chunk: [UInt8] = []
        var expected = Decoded()
        let alone = decode(decoder, template)
        #expect(alone.fixes.count == 1 && alone.errors.isEmpty)
        for _ in 0..<4000 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            var line = template
            switch state % 3 {
            case 0: line.insert(inserts[Int(state >> 20) % inserts.count], at: Int(state >> 8) % line.count)
            case 1: line.remove(at: Int(state >> 8) % line.count)
            default:
                // A value replaced: the bytes between the values stay the template's.
                let colons = line.indices.filter { line[$0] == UInt8(ascii: ":") && line[$0 - 1] == 34 }
                let start = colons[Int(state >> 8) % colons.count] + 1
                var end = start
                var depth = 0
                while end < line.count {
                    let c = line[end]
                    if c == UInt8(ascii: "[") { depth += 1 } else if c == UInt8(ascii: "]") { depth -= 1 }
                    if depth == 0, c == UInt8(ascii: ",") || c == UInt8(ascii: "}") { break }
                    end += 1
                }
                line.replaceSubrange(start..<end, with: values[Int(state >> 24) % values.count])
            }
            // The template first, so the layout in use when the changed line is read is the template's.
            chunk += template + [10] + line + [10]
            expected.fixes += alone.fixes
            let one = decode(decoder, line)
            expected.fixes += one.fixes
            expected.errors += one.errors
        }
        let together = decode(decoder, chunk)
        #expect(together.fixes == expected.fixes)
        #expect(together.errors.map { [$0.kind, $0.reason, $0.field ?? ""] } == expected.errors.map { [$0.kind, $0.reason, $0.field ?? ""] })
        // Both paths were taken: the changed lines include fixes and errors.
        #expect(together.fixes.count > 4000 + 1000 && !together.errors.isEmpty)
    }

    /// A nested value sends a line to the full parser, so each number is read once by each path.
    @Test(arguments: ["0", "-0", "0.1", "52.52", "-33.868820", "12.345678901234567", "0.0000000000000000000001234",
                      "1e1", "1.5E-3", "89.99999999999999999999", "123456789012345", "1234567890123456789"])
    func theFastPathReadsNumbersBitForBitLikeTheFullParser(number: String) {
        let fast = decode(decoder, #"{"device":"a","timestamp":1,"latitude":0,"longitude":0,"altitude":\#(number)}"#)
        let full = decode(decoder,
                          #"{"device":"a","timestamp":1,"latitude":0,"longitude":0,"altitude":\#(number),"z":[0]}"#)
        #expect(fast.fixes.count == 1)
        #expect(fast.fixes.first?.altitude?.bitPattern == full.fixes.first?.altitude?.bitPattern)
        #expect(fast.fixes.first?.altitude?.bitPattern == (try? JSONParser.parse(number))?.doubleValue?.bitPattern)
    }

    /// Numbers of every digit count before and after the point (the fast path reads digits eight at a time where
    /// eight bytes remain, so lengths around 8 and 16 and numbers at the end of the line matter), bit for bit.
    @Test(arguments: 0..<8)
    func randomNumbersReadBitForBitLikeTheFullParser(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(rng.next() % 10)) }) }
        for _ in 0..<400 {
            let whole = Int(rng.next() % 21)
            var number = rng.next() % 4 == 0 ? "-" : ""
            number += whole == 0 ? "0" : String(1 + rng.next() % 9) + digits(whole - 1)
            if rng.next() % 3 != 0 { number += "." + String(rng.next() % 10) + digits(Int(rng.next() % 24)) }
            if rng.next() % 6 == 0 { number += (rng.next() % 2 == 0 ? "e" : "E-") + String(rng.next() % 30) }
            let last = decode(decoder, #"{"device":"a","timestamp":1,"latitude":0,"longitude":0,"altitude":\#(number)}"#)
            let middle = decode(decoder, #"{"device":"a","timestamp":1,"altitude":\#(number),"latitude":0,"longitude":0}"#)
            let reference = (try? JSONParser.parse(number))?.doubleValue?.bitPattern
            #expect(reference != nil, "\(number)")
            #expect(last.fixes.first?.altitude?.bitPattern == reference, "\(number)")
            #expect(middle.fixes.first?.altitude?.bitPattern == reference, "\(number)")
        }
    }

    @Test func deeplyNestedUnknownValuesAreReadUpToTheParsersDepthLimit() {
        func line(depth: Int) -> String {
            #"{"device":"a","timestamp":1,"latitude":1,"longitude":2,"x":"#
                + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        }
        #expect(decode(decoder, line(depth: 63)).fixes.count == 1)
        #expect(decode(decoder, line(depth: 70)).fixes.count == 1)
        #expect(decode(decoder, line(depth: 600)).kinds == ["malformed-json"])
    }

    @Test func unknownKeysAreIgnoredAndDuplicatesAreRefusedOnBothPaths() {
        #expect(decode(decoder, #"{"x":true,"device":"a","timestamp":1,"latitude":1,"longitude":3,"y":null}"#).fixes.count == 1)
        // A repeated key is read neither way (issue 12.8): refused with its path, on the fast and the full parser alike.
        let fast = decode(decoder, #"{"x":true,"device":"a","timestamp":1,"latitude":1,"latitude":2,"longitude":3,"y":null}"#)
        let slow = decode(decoder, #"{"x":[true],"device":"a","timestamp":1,"latitude":1,"latitude":2,"longitude":3}"#)
        let unknown = decode(decoder, #"{"device":"a","timestamp":1,"latitude":1,"longitude":3,"y":1,"y":2}"#)
        let nested = decode(decoder, #"{"device":"a","timestamp":1,"latitude":1,"longitude":3,"y":{"z":1,"z":2}}"#)
        #expect(fast.kinds == ["duplicate-key"] && slow.kinds == ["duplicate-key"])
        #expect(unknown.kinds == ["duplicate-key"] && nested.kinds == ["duplicate-key"])
        #expect(fast.errors.first?.field == "latitude" && nested.errors.first?.field == "y.z")
    }

    @Test func invalidUTF8IsRefusedOnBothPaths() {
        var line = Array(#"{"device":"x"#.utf8) + [0xFF] + Array(#"","timestamp":1,"latitude":1,"longitude":3}"#.utf8)
        #expect(decode(decoder, line).kinds == ["invalid-utf8"])
        line = Array(#"{"device":"\u00e9x"#.utf8) + [0xC3, 0x28] + Array(#"","timestamp":1,"latitude":1,"longitude":3}"#.utf8)
        #expect(decode(decoder, line).kinds == ["invalid-utf8"])
        #expect(decode(decoder, #"{"device":"é","timestamp":1,"latitude":1,"longitude":3}"#).fixes.first?.device == "é")
    }

    @Test func nullOptionalFieldsAreAbsent() {
        let out = decode(decoder, #"{"device":"a","timestamp":1,"latitude":1,"longitude":3,"speed":null,"course":null}"#)
        #expect(out.fixes.first?.speed == nil && out.fixes.first?.course == nil)
    }

    static let mixed = """
        {"device":"a","timestamp":"2026-11-20T08:15:02Z","latitude":52.52,"longitude":13.405,"speed":3}\r
        {"device":"b\\u00e9","timestamp":1763626502000,"latitude":-33.9,"longitude":151.2}

        {"device":"a","timestamp":"2026-11-20T08:15:03Z","latitude":95,"longitude":13.405}
        not json at all
        {"device":"ünïcødé-device-name-longer-than-15","timestamp":1,"latitude":0,"longitude":0,"extra":{"k":[1,2]}}
        {"device":"c","timestamp":2,"latitude":1,"longitude":1}
        """

    @Test(arguments: chunkings)
    func chunkBoundariesDoNotChangeTheOutput(chunkSize: Int?) {
        let whole = decode(decoder, Self.mixed)
        #expect(whole.fixes.count == 4)
        #expect(whole.kinds == ["latitude-out-of-range", "malformed-json"])
        #expect(whole.errors.map(\.line) == [4, 5])
        #expect(decode(decoder, Self.mixed, chunkSize: chunkSize) == whole)
    }

    @Test func aLastLineWithoutNewlineIsDecodedAtFinish() {
        var d = decoder
        var fixes: [LocationFix] = []
        let bytes = Array(#"{"device":"a","timestamp":1,"latitude":1,"longitude":2}"#.utf8)
        bytes.withUnsafeBytes { d.decode($0, onRecord: { fixes.append($0) }, onError: { _ in }) }
        #expect(fixes.isEmpty)
        d.finish(onRecord: { fixes.append($0) }, onError: { _ in })
        #expect(fixes.count == 1)
    }

    @Test func hostileBytesNeverCrashAndEveryNonBlankLineIsAccountedFor() {
        for seed in 1...40 as ClosedRange<UInt64> {
            let bytes = hostileBytes(count: 4000, seed: seed)
            let out = decode(decoder, bytes, chunkSize: 13)
            // Lines as the splitter sees them: split on \n; a trailing \r and whitespace-only lines are blank.
            let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
            let nonBlank = lines.filter { $0.contains { !($0 == 32 || $0 == 9 || $0 == 13) } }.count
            #expect(out.fixes.count + out.errors.count == nonBlank, "seed \(seed)")
            #expect(decode(decoder, bytes) == out, "seed \(seed)")
        }
    }

    /// A line with a string escape anywhere goes through JSONParser instead of the fast scanner, which trimmed the
    /// device id where the parser path did not: `" a "` became `a` or ` a ` depending on an unrelated member, and a
    /// blank id was refused or accepted likewise. Seen while writing Tools/fuzz FuzzNDJSONFixes' fast-path/parser check.
    @Test func deviceIsTrimmedOnBothParsePaths() {
        let out = decode(decoder, #"""
            {"device":" a ","timestamp":1700000000,"latitude":1,"longitude":2}
            {"device":" a ","timestamp":1700000000,"latitude":1,"longitude":2,"note":"\u00e9"}
            {"device":"  ","timestamp":1700000000,"latitude":1,"longitude":2}
            {"device":"  ","timestamp":1700000000,"latitude":1,"longitude":2,"note":"\u00e9"}
            """#)
        #expect(out.fixes.map(\.device) == ["a", "a"])
        #expect(out.kinds == ["missing-device", "missing-device"])
    }
}
