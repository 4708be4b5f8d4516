import TriggerEngine

/// The NDJSON fast path: reads a line holding one flat JSON object (string, number, boolean and null values) without
/// allocating, picking out the fix fields by key. Returns false as soon as the line is anything else (escapes, nested
/// values, malformed text) so the caller can fall back to `JSONParser`, which decides validity and reports errors.
/// It never accepts a line the full parser would reject.
enum FlatJSONScanner {
    static func scanFix(_ b: UnsafeRawBufferPointer, into fields: inout FixFields) -> Bool {
        let n = b.count
        var i = 0
        @inline(__always) func skipSpace() {
            while i < n, b[i] == 32 || b[i] == 9 || b[i] == 13 { i += 1 }
        }
        skipSpace()
        guard i < n, b[i] == UInt8(ascii: "{") else { return false }
        i += 1
        skipSpace()
        guard i < n else { return false }
        if b[i] == UInt8(ascii: "}") {
            i += 1
            skipSpace()
            return i == n
        }
        while true {
            guard i < n, b[i] == 34 else { return false }
            i += 1
            let keyStart = i
            guard let keyEnd = stringEnd(b, &i) else { return false }
            let key = UnsafeRawBufferPointer(rebasing: b[keyStart..<keyEnd])
            skipSpace()
            guard i < n, b[i] == UInt8(ascii: ":") else { return false }
            i += 1
            skipSpace()
            guard i < n else { return false }
            let value: RawValue
            switch b[i] {
            case 34:
                i += 1
                let start = i
                guard let end = stringEnd(b, &i) else { return false }
                value = .bytes(UnsafeRawBufferPointer(rebasing: b[start..<end]))
            case UInt8(ascii: "-"), 48...57:
                let start = i
                guard skipNumber(b, &i),
                      let d = NumberParsing.double(UnsafeRawBufferPointer(rebasing: b[start..<i]))
                else { return false }
                value = .number(d)
            case UInt8(ascii: "t"):
                guard literal(b, &i, "true") else { return false }
                value = .bool(true)
            case UInt8(ascii: "f"):
                guard literal(b, &i, "false") else { return false }
                value = .bool(false)
            case UInt8(ascii: "n"):
                guard literal(b, &i, "null") else { return false }
                value = .null
            default:
                return false
            }
            assign(key, value, &fields)
            skipSpace()
            guard i < n else { return false }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace()
                continue
            }
            guard b[i] == UInt8(ascii: "}") else { return false }
            i += 1
            skipSpace()
            return i == n
        }
    }

    /// Advances past a string's closing quote and returns the index of that quote; nil on escapes, control
    /// characters or a missing quote.
    @inline(__always)
    static func stringEnd(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Int? {
        while i < b.count {
            let c = b[i]
            if c == 34 {
                i += 1
                return i - 1
            }
            if c == 92 || c < 0x20 { return nil }
            i += 1
        }
        return nil
    }

    /// RFC 8259 number grammar.
    @inline(__always)
    static func skipNumber(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool {
        let n = b.count
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return false }
        if b[i] == 48 {
            i += 1
        } else if b[i] >= 49, b[i] <= 57 {
            while i < n, b[i] >= 48, b[i] <= 57 { i += 1 }
        } else {
            return false
        }
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, b[i] >= 48, b[i] <= 57 else { return false }
            while i < n, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, b[i] >= 48, b[i] <= 57 else { return false }
            while i < n, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        return true
    }

    @inline(__always)
    static func literal(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ word: StaticString) -> Bool {
        let len = word.utf8CodeUnitCount
        guard i + len <= b.count else { return false }
        let p = word.utf8Start
        for k in 0..<len where b[i + k] != p[k] { return false }
        i += len
        return true
    }

    @inline(__always)
    static func equals(_ key: UnsafeRawBufferPointer, _ word: StaticString) -> Bool {
        let len = word.utf8CodeUnitCount
        guard key.count == len else { return false }
        let p = word.utf8Start
        for k in 0..<len where key[k] != p[k] { return false }
        return true
    }

    /// Dispatches on length and first byte first, so most keys cost one or two comparisons.
    @inline(__always)
    static func assign(_ key: UnsafeRawBufferPointer, _ value: RawValue, _ f: inout FixFields) {
        switch key.count {
        case 5: if equals(key, "speed") { f.speed = value }
        case 6:
            if key[0] == UInt8(ascii: "d") {
                if equals(key, "device") { f.device = value }
            } else if equals(key, "course") {
                f.course = value
            }
        case 8:
            if key[0] == UInt8(ascii: "l") {
                if equals(key, "latitude") { f.latitude = value }
            } else if equals(key, "altitude") {
                f.altitude = value
            }
        case 9:
            if key[0] == UInt8(ascii: "l") {
                if equals(key, "longitude") { f.longitude = value }
            } else if equals(key, "timestamp") {
                f.timestamp = value
            }
        case 18: if equals(key, "horizontalAccuracy") { f.accuracy = value }
        default: break
        }
    }
}
