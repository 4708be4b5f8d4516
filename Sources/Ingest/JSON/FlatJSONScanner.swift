import JSON
import TriggerEngine

/// The NDJSON fast path: reads a line holding one JSON object without allocating, picking out the fix fields by key
/// and validating (not building) nested values of other keys. Returns false as soon as the line is anything else
/// (string escapes, bytes above 0x7F, a repeated key, a nested non-empty object, nesting deeper than 64, malformed
/// text) so the caller can fall back to `JSONParser`, which decides validity and reports errors. It never accepts a
/// line the full parser would reject.
enum FlatJSONScanner {
    /// Keys remembered per line to find a repeated one; a line with more goes to the full parser.
    static let maximumKeys = 32

    /// Reads the line through `layout` when the bytes between its values are the layout's; otherwise key by key,
    /// and then `layout` learns this line's shape for the next.
    static func scanFix(_ b: UnsafeRawBufferPointer, into fields: inout FixFields, layout: inout FixLayout) -> Bool {
        if !layout.isEmpty {
            if scanFix(b, into: &fields, following: layout) { return true }
            // Whatever the layout path read is dropped: the key-by-key scan decides on its own.
            fields = FixFields()
        }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 2 * maximumKeys) { spans in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumKeys) { targets in
                let keys = UnsafeMutableBufferPointer(rebasing: spans[0..<maximumKeys])
                let values = UnsafeMutableBufferPointer(rebasing: spans[maximumKeys...])
                var count = 0
                var close = 0
                guard scanFix(b, into: &fields, keys: keys, values: values, targets: targets, count: &count, close: &close) else {
                    return false
                }
                if count > 0 { layout.learn(b, values: values, fields: targets, count: count, close: close) }
                return true
            }
        }
    }

    /// The layout path: each piece between values compared as bytes, each value read as the key-by-key scan reads
    /// it. False as soon as anything differs (the caller then scans key by key, which decides).
    static func scanFix(_ b: UnsafeRawBufferPointer, into fields: inout FixFields, following layout: FixLayout) -> Bool {
        var i = 0
        for k in layout.fields.indices {
            guard layout.matches(piece: k, b, at: &i), i < b.count else { return false }
            guard let value = self.value(b, &i) else { return false }
            assign(index: layout.fields[k], value, &fields)
        }
        guard layout.matches(piece: layout.fields.count, b, at: &i) else { return false }
        skipSpace(b, &i)
        return i == b.count
    }

    /// One value at `i` (a string without escapes, a number, a literal, or a skipped container); nil when it is
    /// anything else.
    @inline(__always)
    static func value(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> RawValue? {
        switch b[i] {
        case 34:
            i += 1
            let start = i
            guard let end = stringEnd(b, &i) else { return nil }
            return .bytes(UnsafeRawBufferPointer(rebasing: b[start..<end]))
        case UInt8(ascii: "-"), 48...57:
            guard let d = number(b, &i) else { return nil }
            return .number(d)
        case UInt8(ascii: "t"):
            guard literal(b, &i, "true") else { return nil }
            return .bool(true)
        case UInt8(ascii: "f"):
            guard literal(b, &i, "false") else { return nil }
            return .bool(false)
        case UInt8(ascii: "n"):
            guard literal(b, &i, "null") else { return nil }
            return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = b[i] == UInt8(ascii: "{")
            guard skipContainer(b, &i) else { return nil }
            return .other(isObject ? "an object" : "an array")
        default:
            return nil
        }
    }

    /// Whether the key at `range` already occurred at one of `keys` (raw bytes: the fast path has no escapes).
    @inline(__always)
    static func isRepeated(_ b: UnsafeRawBufferPointer, _ range: Range<Int>, _ keys: UnsafeMutableBufferPointer<Range<Int>>, count: Int) -> Bool {
        next: for k in 0..<count where keys[k].count == range.count {
            let other = keys[k].lowerBound
            for j in 0..<range.count where b[other + j] != b[range.lowerBound + j] { continue next }
            return true
        }
        return false
    }

    /// The key-by-key scan. Records each value's span and field (`values`, `targets`), their `count` and the
    /// closing brace's index, for `FixLayout.learn`.
    static func scanFix(_ b: UnsafeRawBufferPointer, into fields: inout FixFields, keys: UnsafeMutableBufferPointer<Range<Int>>,
                        values: UnsafeMutableBufferPointer<Range<Int>>, targets: UnsafeMutableBufferPointer<UInt8>,
                        count: inout Int, close: inout Int) -> Bool {
        var keyCount = 0
        // The fields given so far: a second key for one field (`lat` and `latitude`) is the full parser's to report.
        var given: UInt8 = 0
        let n = b.count
        var i = 0
        skipSpace(b, &i)
        guard i < n, b[i] == UInt8(ascii: "{") else { return false }
        i += 1
        skipSpace(b, &i)
        guard i < n else { return false }
        if b[i] == UInt8(ascii: "}") {
            close = i
            i += 1
            skipSpace(b, &i)
            return i == n
        }
        while true {
            guard i < n, b[i] == 34 else { return false }
            i += 1
            let keyStart = i
            guard let keyEnd = stringEnd(b, &i) else { return false }
            let key = UnsafeRawBufferPointer(rebasing: b[keyStart..<keyEnd])
            guard keyCount < keys.count, !isRepeated(b, keyStart..<keyEnd, keys, count: keyCount) else { return false }
            keys[keyCount] = keyStart..<keyEnd
            keyCount += 1
            skipSpace(b, &i)
            guard i < n, b[i] == UInt8(ascii: ":") else { return false }
            i += 1
            skipSpace(b, &i)
            guard i < n else { return false }
            let valueStart = i
            guard let value = self.value(b, &i) else { return false }
            let target = fieldIndex(key)
            if target != ignored {
                guard given & (1 << target) == 0 else { return false }
                given |= 1 << target
            }
            values[keyCount - 1] = valueStart..<i
            targets[keyCount - 1] = target
            count = keyCount
            assign(index: target, value, &fields)
            skipSpace(b, &i)
            guard i < n else { return false }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace(b, &i)
                continue
            }
            guard b[i] == UInt8(ascii: "}") else { return false }
            close = i
            i += 1
            skipSpace(b, &i)
            return i == n
        }
    }

    /// The field a key names (`FixField.rawValue`: 0 device, 1 timestamp, 2 latitude, 3 longitude, 4 accuracy,
    /// 5 altitude, 6 speed, 7 course); `ignored` for any other key. SPEC §2's names are dispatched on length and first
    /// byte, so they cost one or two comparisons; any other key is looked up in `FieldAliases` (`lat`, `lon`,
    /// `time`…). Keys are only read here for a line whose shape `FixLayout` does not already know.
    @inline(__always)
    static func fieldIndex(_ key: UnsafeRawBufferPointer) -> UInt8 {
        switch key.count {
        case 5: if equals(key, "speed") { return 6 }
        case 6:
            if key[0] == UInt8(ascii: "d") {
                if equals(key, "device") { return 0 }
            } else if equals(key, "course") {
                return 7
            }
        case 8:
            if key[0] == UInt8(ascii: "l") {
                if equals(key, "latitude") { return 2 }
            } else if equals(key, "altitude") {
                return 5
            }
        case 9:
            if key[0] == UInt8(ascii: "l") {
                if equals(key, "longitude") { return 3 }
            } else if equals(key, "timestamp") {
                return 1
            }
        case 18: if equals(key, "horizontalAccuracy") { return 4 }
        default: break
        }
        return FieldAliases.field(ofKey: key)?.rawValue ?? ignored
    }

    static let ignored: UInt8 = .max

    @inline(__always)
    static func assign(index: UInt8, _ value: consuming RawValue, _ f: inout FixFields) {
        switch index {
        case 0: f.device = value
        case 1: f.timestamp = value
        case 2: f.latitude = value
        case 3: f.longitude = value
        case 4: f.accuracy = value
        case 5: f.altitude = value
        case 6: f.speed = value
        case 7: f.course = value
        default: break
        }
    }
}
