import Ingest
import Testing

/// Lines kept as read (`keepingNewlines`, as the ingest reader frames a body) come out whole and numbered however
/// the stream is cut into chunks: in place within a chunk, gathered across chunks, and a last line without its
/// newline at the end.
@Suite struct LineSplitterTests {
    static func frame(_ text: String, cuts: [Int]) -> [(Int, String)] {
        let bytes = Array(text.utf8)
        var framer = LineSplitter(keepingNewlines: true)
        var out: [(Int, String)] = []
        var start = 0
        for end in (cuts.filter { $0 > 0 && $0 < bytes.count }.sorted() + [bytes.count]) where end >= start {
            bytes[start..<end].withUnsafeBytes { chunk in
                framer.feed(chunk) { out.append(($0.number, String(decoding: $0.bytes, as: UTF8.self))) }
            }
            start = end
        }
        framer.finish { out.append(($0.number, String(decoding: $0.bytes, as: UTF8.self))) }
        return out
    }

    @Test(arguments: 0..<40)
    func everyCuttingGivesTheSameLines(seed: Int) {
        let text = "{\"a\":1}\n\n{\"b\":\"ü\"}\r\n" + String(repeating: "x", count: seed * 7) + "\n{\"c\":3}"
        let expected = ["{\"a\":1}\n", "\n", "{\"b\":\"ü\"}\r\n", String(repeating: "x", count: seed * 7) + "\n", "{\"c\":3}\n"]
        var state = UInt64(seed + 1)
        let cuts = (0..<(seed % 6)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % (text.utf8.count + 1)
        }
        let lines = Self.frame(text, cuts: cuts + (seed == 0 ? Array(0...text.utf8.count) : []))
        #expect(lines.map(\.0) == Array(1...expected.count), "cuts \(cuts)")
        #expect(lines.map(\.1) == expected, "cuts \(cuts)")
    }
}
