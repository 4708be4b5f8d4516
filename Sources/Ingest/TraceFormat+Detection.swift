/// Which decoder reads an input: by its first bytes first, by file extension when the content says nothing.
extension TraceFormat {
    /// Content rules, in order: `<?xml`/`<gpx` → gpx; a line starting `$` or `!` (after gpsd's `#` header lines) → nmea;
    /// JSON with `"_type"` → owntracks; gpsd's reports (`"class":"TPV"`, `"VERSION"`, `"DEVICES"`) → gpsd; JSON with `"fixTime"`, `"deviceId"` or a forwarded `"position"` → traccar;
    /// other JSON → ndjson; a first line with a comma, semicolon or tab → csv. A few kilobytes of prefix are plenty.
    public static func detect(prefix: UnsafeRawBufferPointer, fileName: String) -> TraceFormat? {
        byContent(prefix) ?? byExtension(fileName)
    }

    public static func detect(prefix: [UInt8], fileName: String) -> TraceFormat? {
        prefix.withUnsafeBytes { detect(prefix: $0, fileName: fileName) }
    }

    static func byContent(_ b: UnsafeRawBufferPointer) -> TraceFormat? {
        var i = 0
        let n = b.count
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        func skipSpace() { while i < n, b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13 { i += 1 } }
        skipSpace()
        // gpsd test logs open with `#` comment lines.
        var sawComment = false
        while i < n, b[i] == UInt8(ascii: "#") {
            sawComment = true
            while i < n, b[i] != 10 { i += 1 }
            skipSpace()
        }
        guard i < n else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: b[i...])
        switch b[i] {
        case UInt8(ascii: "<"):
            return contains(rest, "<gpx") || startsWith(rest, "<?xml") ? .gpx : nil
        case UInt8(ascii: "$"), UInt8(ascii: "!"):
            return .nmea
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if sawComment { return nil }
            if contains(rest, "\"_type\"") { return .owntracks }
            // gpsd's reports (`gpspipe -w`): every object has a class, the first a VERSION or a TPV.
            if contains(rest, "\"class\":\"VERSION\"") || contains(rest, "\"class\":\"TPV\"") || contains(rest, "\"class\":\"DEVICES\"") {
                return .gpsd
            }
            if contains(rest, "\"fixTime\"") || contains(rest, "\"deviceId\"") || contains(rest, "\"deviceTime\"")
                || contains(rest, "\"position\"")
            {
                return .traccar
            }
            return .ndjson
        default:
            if sawComment { return nil }
            var j = i
            while j < n, b[j] != 10 {
                if b[j] == 44 || b[j] == 59 || b[j] == 9 { return .csv }
                j += 1
            }
            return nil
        }
    }

    /// Why the first bytes of an input are binary rather than a text trace: the offset of its first NUL byte or of
    /// its first byte that is not UTF-8, with what it is; nil for text. A sequence cut off by the end of the prefix is
    /// not held against it. NMEA is the one text format that legitimately carries binary (receivers interleave their
    /// vendor protocol), so callers do not ask for it.
    public static func binaryEvidence(_ b: UnsafeRawBufferPointer) -> (offset: Int, what: String)? {
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c == 0 { return (i, "a NUL byte") }
            if c < 0x80 { i += 1; continue }
            let length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0
            guard length > 0 else { return (i, "a byte that is not UTF-8") }
            for k in 1..<length {
                guard i + k < n else { return nil }
                let d = b[i + k]
                var low: UInt8 = 0x80, high: UInt8 = 0xBF
                if k == 1 {
                    if c == 0xE0 { low = 0xA0 } else if c == 0xED { high = 0x9F }
                    else if c == 0xF0 { low = 0x90 } else if c == 0xF4 { high = 0x8F }
                }
                guard d >= low && d <= high else { return (i, "a byte that is not UTF-8") }
            }
            i += length
        }
        return nil
    }

    /// Whether JSON content is a region file rather than fixes: a GeoJSON FeatureCollection, or SPEC §1 requests
    /// (an `identifier` with a `trigger`), as when the two arguments of `replay` are swapped.
    public static func looksLikeRegions(_ b: [UInt8]) -> Bool {
        b.withUnsafeBytes { b in
            contains(b, "\"FeatureCollection\"") || (contains(b, "\"identifier\"") && contains(b, "\"trigger\""))
        }
    }

    /// What a reader says of an input with `binaryEvidence`, naming the offset and never showing the bytes.
    public static func binaryReason(_ evidence: (offset: Int, what: String)) -> String {
        if evidence.what == "a NUL byte" {
            return "a binary file, not a trace (a NUL byte at byte \(evidence.offset)); traces are text: GPX, NMEA, CSV, "
                + "NDJSON, OwnTracks, Traccar or gpsd JSON"
        }
        return "not UTF-8 text (a byte that is not UTF-8 at byte \(evidence.offset)): a binary file, or text in another "
            + "encoding (convert it first, e.g. iconv -f latin1 -t utf-8)"
    }

    public static func binaryEvidence(_ b: [UInt8]) -> (offset: Int, what: String)? {
        b.withUnsafeBytes { binaryEvidence($0) }
    }

    static func byExtension(_ fileName: String) -> TraceFormat? {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "gpx": return .gpx
        case "nmea", "nma", "nmea0183": return .nmea
        case "csv", "tsv": return .csv
        case "ndjson", "jsonl", "json", "geojsonl": return .ndjson
        default: return nil
        }
    }

    static func startsWith(_ b: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        let len = word.utf8CodeUnitCount
        guard b.count >= len else { return false }
        for k in 0..<len where b[k] != word.utf8Start[k] { return false }
        return true
    }

    static func contains(_ b: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        let len = word.utf8CodeUnitCount
        guard b.count >= len else { return false }
        var k = 0
        while k + len <= b.count {
            if startsWith(UnsafeRawBufferPointer(rebasing: b[k...]), word) { return true }
            k += 1
        }
        return false
    }
}
