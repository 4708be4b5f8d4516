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
