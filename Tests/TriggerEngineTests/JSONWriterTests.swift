import Foundation
import JSON
import TestSupport
import Testing

/// The writer's fast paths (eight-byte scans for escapes, digits without a String, comma bits instead of an array)
/// against the plain rules they replace: the same bytes for every input.
@Suite struct JSONWriterTests {
    /// The byte-at-a-time escaping the writer used before its fast path: the reference.
    static func quoted(_ s: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        let hex = Array("0123456789abcdef".utf8)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20: out += [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        return out + [0x22]
    }

    @Test(arguments: 0..<20)
    func stringsAreEscapedAsByteByByteAtEveryLengthAndPlace(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(seed))
        // Mostly plain ASCII, with escapes, control characters and multi-byte characters sprinkled in.
        let alphabet: [Character] = Array("abcXYZ09 -_/:.") + ["\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "€", "😀", "\u{0}"]
        for _ in 0..<200 {
            let n = Int.random(in: 0...70, using: &rng)
            let plainRun = Bool.random(using: &rng)
            let s = String((0..<n).map { _ in
                plainRun && Int.random(in: 0..<20, using: &rng) != 0 ? "a" : alphabet.randomElement(using: &rng)!
            })
            var w = JSONWriter()
            w.string(s)
            #expect(w.bytes == Self.quoted(s), "\(s.debugDescription)")
            // And it reads back as the same string.
            #expect(try JSONParser.parse(String(decoding: w.bytes, as: UTF8.self)) == .string(s))
        }
    }

    /// The cursor (the notification renderer's writer) against the same references: escaped strings and numbers.
    @Test(arguments: 0..<5)
    func theCursorWritesWhatTheWriterWrites(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(100 + seed))
        let alphabet: [Character] = Array("abcXYZ09 -_/:.") + ["\"", "\\", "\n", "\t", "\u{01}", "\u{7F}", "é", "😀", "\u{0}"]
        for _ in 0..<300 {
            let n = Int.random(in: 0...40, using: &rng)
            let s = String((0..<n).map { _ in Int.random(in: 0..<4, using: &rng) != 0 ? "a" : alphabet.randomElement(using: &rng)! })
            var w = JSONWriter()
            #expect(w.appendThroughCursor { $0.literal("\""); $0.escaped(s); $0.literal("\"") })
            #expect(w.bytes == Self.quoted(s), "\(s.debugDescription)")
            let d = [rng.double(-1e6, 1e6), Double(Int.random(in: -1_000...1_000, using: &rng)), .nan, 1e300, -0.0][Int.random(in: 0..<5, using: &rng)]
            var cursor = JSONWriter(), writer = JSONWriter()
            #expect(cursor.appendThroughCursor { $0.number(d) })
            writer.number(d)
            #expect(cursor.bytes == writer.bytes, "\(d)")
        }
        // Integral values take the cursor's own digits: the edges of each digit count and sign.
        for d in [0.0, -0.0, 1, -1, 9, -9, 10, -10, 99, -100, 123_456, -9_007_199_254_740_991, 9_007_199_254_740_991] {
            var cursor = JSONWriter(), writer = JSONWriter()
            #expect(cursor.appendThroughCursor { $0.number(d) })
            writer.number(d)
            #expect(cursor.bytes == writer.bytes, "\(d)")
        }
        // Non-integral numbers are Double's own shortest text (`description`), long ones too.
        for _ in 0..<2_000 {
            let d = rng.double(-1, 1) * [1e-300, 1e-7, 1, 180, 1e15, 1e300][Int.random(in: 0..<6, using: &rng)]
            guard d != d.rounded() else { continue }
            var w = JSONWriter()
            w.number(d)
            #expect(String(decoding: w.bytes, as: UTF8.self) == d.description)
        }
        // Text that does not fit leaves the writer as it was.
        var w = JSONWriter()
        w.beginArray()
        #expect(!w.appendThroughCursor(capacity: 16) { $0.escaped(String(repeating: "x", count: 20)) })
        w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[]")
    }

    @Test func numbersAreWrittenAsBefore() {
        let ints = [0, 7, -7, 10, -10, 99, 100, 123_456_789, Int.max, Int.min, Int(Int32.min)]
        for v in ints {
            var w = JSONWriter()
            w.number(v)
            #expect(String(decoding: w.bytes, as: UTF8.self) == String(v))
        }
        let doubles: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (1, "1"), (-42, "-42"), (52.5219, "52.5219"), (1e300, "1e+300"), (0.1, "0.1"),
            (9_007_199_254_740_991, "9007199254740991"), (9_007_199_254_740_992, "9007199254740992.0"),
            (.nan, "null"), (.infinity, "null"),
        ]
        for (v, text) in doubles {
            var w = JSONWriter()
            w.number(v)
            #expect(String(decoding: w.bytes, as: UTF8.self) == text, "\(v)")
        }
    }

    @Test func literalNamesWriteWhatStringNamesWrite() {
        var a = JSONWriter(), b = JSONWriter()
        a.beginObject(); a.field("id", "x"); a.key("inner"); a.beginObject(); a.field("n", 1.5); a.field("ok", true); a.endObject()
        a.field("k", 7); a.endObject()
        b.beginObject(); b.field(literal: "id", "x"); b.key(literal: "inner"); b.beginObject(); b.field(literal: "n", 1.5)
        b.field(literal: "ok", true); b.endObject(); b.field(literal: "k", 7); b.endObject()
        #expect(a.bytes == b.bytes)
        #expect(String(decoding: b.bytes, as: UTF8.self) == #"{"id":"x","inner":{"n":1.5,"ok":true},"k":7}"#)
    }

    @Test func commasAreRightAtEveryDepthPast64() {
        // 100 nested arrays, each holding a number, the inner array and an object with two members.
        var w = JSONWriter()
        var expected = ""
        for d in 0..<100 {
            w.beginArray()
            w.number(d)
            expected += "[\(d),"
        }
        for d in (0..<100).reversed() {
            w.beginObject()
            w.field("a", d)
            w.field("b", true)
            w.endObject()
            w.endArray()
            expected += "{\"a\":\(d),\"b\":true}]"
        }
        // The innermost array holds its number and then the object; each outer array the inner array and an object.
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == expected.replacingOccurrences(of: "]{", with: "],{"))
    }

    /// Distances rounded to hundredths, written without `Double.description`: the same text as the general number
    /// writer gives the rounded value, for small, large, negative, whole and halfway values.
    @Test func hundredthsAreWrittenAsTheGeneralNumberWriterWritesTheRoundedValue() {
        var rng = SplitMix(seed: 7)
        var values: [Double] = [0, -0.0, 0.004, 0.005, 0.015, 0.35, 1, 1.5, 1.05, 2.675, -0.35, -12.5, 99.995, 1e12 + 0.25,
                                9.99e12, 1e13, 1.5e14, -3e14, .infinity, -.infinity, .nan]
        for _ in 0..<20_000 {
            let magnitude = [1.0, 10, 1_000, 1e6][Int(rng.next() % 4)]
            values.append((Double(rng.next() % 2_000_001) / 1_000_000 - 1) * magnitude)
        }
        for v in values {
            var fast = JSONWriter(), general = JSONWriter()
            fast.number(hundredths: v)
            general.number((v * 100).rounded() / 100)
            #expect(fast.bytes == general.bytes, "\(v): \(String(decoding: fast.bytes, as: UTF8.self)) vs \(String(decoding: general.bytes, as: UTF8.self))")
        }
    }
}
