import JSON

/// The fast path's lexical pieces: containers skipped with their grammar checked, spaces, strings, numbers and
/// literals, each as `JSONParser` reads them (anything it would read differently returns nil or false).
extension FlatJSONScanner {
    /// Skips one array or object (an unknown key's value), checking its grammar as `JSONParser` would. Levels are
    /// tracked in a 64-bit mask, so deeper nesting, like any string escape, is left to the full parser.
    static func skipContainer(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool {
        let n = b.count
        var k = i
        var objects: UInt64 = 0  // bit d set: level d is an object
        var depth = 0
        var expectingValue = true
        while true {
            if expectingValue {
                guard k < n else { return false }
                let c = b[k]
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    guard depth < 64 else { return false }
                    let isObject = c == UInt8(ascii: "{")
                    if isObject { objects |= 1 << UInt64(depth) } else { objects &= ~(1 << UInt64(depth)) }
                    depth += 1
                    k += 1
                    skipSpace(b, &k)
                    guard k < n else { return false }
                    if b[k] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        k += 1
                        depth -= 1
                    } else {
                        // An object with members may repeat a key: the full parser decides.
                        if isObject { return false }
                        continue
                    }
                } else if c == 34 {
                    k += 1
                    guard stringEnd(b, &k) != nil else { return false }
                } else if c == UInt8(ascii: "-") || (c >= 48 && c <= 57) {
                    guard number(b, &k) != nil else { return false }
                } else if c == UInt8(ascii: "t") {
                    guard literal(b, &k, "true") else { return false }
                } else if c == UInt8(ascii: "f") {
                    guard literal(b, &k, "false") else { return false }
                } else if c == UInt8(ascii: "n") {
                    guard literal(b, &k, "null") else { return false }
                } else {
                    return false
                }
                expectingValue = false
            }
            if depth == 0 {
                i = k
                return true
            }
            skipSpace(b, &k)
            guard k < n else { return false }
            let inObject = objects & (1 << UInt64(depth - 1)) != 0
            if b[k] == UInt8(ascii: ",") {
                k += 1
                skipSpace(b, &k)
                if inObject { guard memberName(b, &k) else { return false } }
                expectingValue = true
            } else if b[k] == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                k += 1
                depth -= 1
            } else {
                return false
            }
        }
    }

    /// `"name"` `:` and the spaces after it, inside a skipped object.
    @inline(__always)
    static func memberName(_ b: UnsafeRawBufferPointer, _ k: inout Int) -> Bool {
        guard k < b.count, b[k] == 34 else { return false }
        k += 1
        guard stringEnd(b, &k) != nil else { return false }
        skipSpace(b, &k)
        guard k < b.count, b[k] == UInt8(ascii: ":") else { return false }
        k += 1
        skipSpace(b, &k)
        return true
    }

    /// A static function rather than a nested one: a nested function capturing the index costs a dynamic
    /// exclusivity check per call.
    @inline(__always)
    static func skipSpace(_ b: UnsafeRawBufferPointer, _ i: inout Int) {
        while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 13 { i += 1 }
    }

    /// Advances past a string's closing quote and returns the index of that quote; nil on escapes, control
    /// characters or a missing quote. Strings are most of a line's bytes, so they are checked eight at a time.
    @inline(__always)
    static func stringEnd(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Int? {
        guard let base = b.baseAddress else { return nil }
        let n = b.count
        var k = i
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        while k + 8 <= n {
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: k, as: UInt64.self))
            let quote = w ^ (ones &* 0x22)
            let slash = w ^ (ones &* 0x5C)
            // The classic "has a zero byte" and "has a byte below 0x20" tests: no false negatives; a false positive
            // only sends this word to the exact byte loop below. A byte above 0x7F (`w & high`) goes there too.
            let special = ((quote &- ones) & ~quote | (slash &- ones) & ~slash | (w &- ones &* 0x20) & ~w | w) & high
            if special != 0 { break }
            k += 8
        }
        while k < n {
            let c = b[k]
            if c == 34 {
                i = k + 1
                return k
            }
            // Non-ASCII text is left to the full parser, which checks it is UTF-8.
            if c == 92 || c < 0x20 || c >= 0x80 { return nil }
            k += 1
        }
        return nil
    }

    /// Reads a number by the RFC 8259 grammar, computing plain decimals in the same pass. The result is bit for bit
    /// `NumberParsing.double`'s (same exact-arithmetic condition and formula; anything else is handed to it), so the
    /// fast and full paths agree.
    @inline(__always)
    static func number(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Double? {
        let n = b.count
        let start = i
        var k = i
        let negative = b[k] == UInt8(ascii: "-")
        if negative { k += 1 }
        guard k < n else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        if b[k] == 48 {
            k += 1
            digits = 1
        } else if b[k] >= 49, b[k] <= 57 {
            while k < n, b[k] >= 48, b[k] <= 57 {
                mantissa = mantissa &* 10 &+ UInt64(b[k] &- 48)
                digits += 1
                k += 1
            }
        } else {
            return nil
        }
        if k < n, b[k] == UInt8(ascii: ".") {
            k += 1
            guard k < n, b[k] >= 48, b[k] <= 57 else { return nil }
            while k < n, b[k] >= 48, b[k] <= 57 {
                mantissa = mantissa &* 10 &+ UInt64(b[k] &- 48)
                digits += 1
                fraction += 1
                k += 1
            }
        }
        var plain = true
        if k < n, b[k] == UInt8(ascii: "e") || b[k] == UInt8(ascii: "E") {
            plain = false
            k += 1
            if k < n, b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-") { k += 1 }
            guard k < n, b[k] >= 48, b[k] <= 57 else { return nil }
            while k < n, b[k] >= 48, b[k] <= 57 { k += 1 }
        }
        i = k
        if plain, digits <= 15, fraction <= 22 {
            let v = Double(mantissa) / powerOfTen(fraction)
            return negative ? -v : v
        }
        return NumberParsing.double(UnsafeRawBufferPointer(rebasing: b[start..<k]))
    }

    /// 10^e for 0 ≤ e ≤ 22, all exact in a Double.
    @inline(__always)
    static func powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
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
}
