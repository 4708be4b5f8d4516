/// One cell of a CSV record, as a range of the record's bytes (no copy).
struct CSVCell {
    var start: Int
    var end: Int
    /// Quoted with `""` inside, so the content needs unescaping.
    var escaped: Bool

    func raw(_ record: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: record[start..<end])
    }

    /// The cell's text: borrowed bytes, or an unescaped copy in the rare `""` case. Quoted empty cells are empty.
    func value(_ record: UnsafeRawBufferPointer) -> RawValue {
        guard escaped else { return .bytes(raw(record)) }
        var out: [UInt8] = []
        var i = start
        while i < end {
            out.append(record[i])
            i += record[i] == 34 && i + 1 < end && record[i + 1] == 34 ? 2 : 1
        }
        return .string(String(decoding: out, as: UTF8.self))
    }

    struct Problem {
        var offset: Int
        var reason: String
    }

    /// Splits a record into `cells` (reusing its storage); a problem when quoting is broken.
    static func split(_ b: UnsafeRawBufferPointer, delimiter: UInt8, into cells: inout [CSVCell]) -> Problem? {
        cells.removeAll(keepingCapacity: true)
        let n = b.count
        var i = 0
        while true {
            // Spaces before an opening quote are tolerated.
            var j = i
            while j < n, b[j] == 32 { j += 1 }
            if j < n, b[j] == 34 {
                let open = j
                i = j + 1
                let start = i
                var escaped = false
                while true {
                    guard i < n else { return Problem(offset: open, reason: "unterminated quoted field") }
                    if b[i] == 34 {
                        if i + 1 < n, b[i + 1] == 34 { escaped = true; i += 2; continue }
                        break
                    }
                    i += 1
                }
                cells.append(CSVCell(start: start, end: i, escaped: escaped))
                i += 1
                while i < n, b[i] == 32 { i += 1 }
                guard i == n || b[i] == delimiter else {
                    return Problem(offset: i, reason: "text after the closing quote of a field")
                }
            } else {
                let start = i
                while i < n, b[i] != delimiter { i += 1 }
                cells.append(CSVCell(start: start, end: i, escaped: false))
            }
            if i >= n { return nil }
            i += 1  // delimiter
            if i == n {
                cells.append(CSVCell(start: n, end: n, escaped: false))
                return nil
            }
        }
    }
}
