/// A JSON array body cut into its elements' own bytes, so each is decoded exactly as the same record sent as an NDJSON
/// line would be (re-serialising a parsed value would lose what the decoder must judge: 1e999 becomes null).
public enum JSONArrayElements {
    /// Each element as one line: its bytes with line breaks (only possible between tokens) made spaces, then a newline.
    public static func lines(ofArray bytes: [UInt8]) -> [[UInt8]] {
        elements(ofArray: bytes).map { element in
            var line = element.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
            line.append(0x0A)
            return line
        }
    }

    /// The byte slices of a JSON array's elements (the array is already known to parse).
    public static func elements(ofArray bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var depth = 0, inString = false, escaped = false, start: Int?
        for (i, b) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
                continue
            }
            switch b {
            case 0x22:
                inString = true
                if depth == 1, start == nil { start = i }
            case 0x5B, 0x7B:
                if depth == 1, start == nil { start = i }
                depth += 1
            case 0x5D, 0x7D:
                depth -= 1
                if depth == 0, let s = start { out.append(bytes[s..<i]); start = nil }
            case 0x2C where depth == 1:
                if let s = start { out.append(bytes[s..<i]); start = nil }
            case 0x20, 0x09, 0x0A, 0x0D:
                break
            default:
                if depth == 1, start == nil { start = i }
            }
        }
        return out
    }
}
