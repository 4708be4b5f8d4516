#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The shape of the last NDJSON line `FlatJSONScanner` read key by key: the bytes between its values (`{"device":`,
/// `,"timestamp":`, … and the closing `}`) and the fix field each value goes to. Producers write every line with the
/// same keys in the same order, so the next line usually has the same bytes between its values: it is then read
/// value by value, one comparison per key, instead of scanning each key, checking it against the line's earlier keys
/// and dispatching on its name. Only a line the key-by-key scan accepted is learned, so its keys are distinct and
/// the bytes between values hold no escapes; a line that differs anywhere goes back to the key-by-key scan.
struct FixLayout {
    /// Every piece's bytes, one after another.
    private(set) var glue: [UInt8] = []
    /// Where each piece ends in `glue`: one piece before each value, then the closing one.
    private(set) var ends: [Int] = []
    /// Per value: the `FixFields` field it goes to (`FlatJSONScanner.fieldIndex`).
    private(set) var fields: [UInt8] = []

    var isEmpty: Bool { fields.isEmpty }

    /// Learns line `b` from its values' spans and the index of its closing brace. Reuses its arrays' storage:
    /// sized at the first line, so a decoder allocates three times in all (once per file or request body), never
    /// per line.
    mutating func learn(_ b: UnsafeRawBufferPointer, values: UnsafeMutableBufferPointer<Range<Int>>,
                        fields: UnsafeMutableBufferPointer<UInt8>, count: Int, close: Int) {
        if ends.capacity == 0 {
            glue.reserveCapacity(max(256, b.count))
            ends.reserveCapacity(FlatJSONScanner.maximumKeys + 1)
            self.fields.reserveCapacity(FlatJSONScanner.maximumKeys)
        }
        glue.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        self.fields.removeAll(keepingCapacity: true)
        var from = 0
        for k in 0..<count {
            glue.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[from..<values[k].lowerBound]))
            ends.append(glue.count)
            self.fields.append(fields[k])
            from = values[k].upperBound
        }
        glue.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[from...close]))
        ends.append(glue.count)
    }

    /// Whether `b` at `i` holds piece `k`; advances `i` past it.
    @inline(__always)
    func matches(piece k: Int, _ b: UnsafeRawBufferPointer, at i: inout Int) -> Bool {
        glue.withUnsafeBytes { g in
            let start = k == 0 ? 0 : ends[k - 1]
            let length = ends[k] - start
            guard i + length <= b.count else { return false }
            guard memcmp(b.baseAddress! + i, g.baseAddress! + start, length) == 0 else { return false }
            i += length
            return true
        }
    }
}
