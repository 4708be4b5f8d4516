/// Appends compact JSON to a byte buffer. Used for every NDJSON line GeoTrigger writes, so output is byte-stable
/// (member order as written, integral numbers without ".0") and golden files compare as text.
public struct JSONWriter {
    public var bytes: [UInt8]
    /// Per open object or array, whether the next value needs a comma: one bit per level (innermost lowest), so
    /// writing allocates nothing but `bytes`; levels past 64 (hand-written userInfo, say) spill into `deep`.
    private var commas: UInt64 = 0
    private var depth = 0
    private var deep: [Bool] = []

    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// A writer appending to `bytes` at the top level (no separator before its first value).
    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); push() }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); pop() }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); push() }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); pop() }

    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        bytes.append(UInt8(ascii: ":"))
        // The value after a key takes no comma; the member after it does (set by the value's `separate`).
        if depth > 0 { setComma(false) }
    }

    /// A member name known when compiling (no escaping needed: checked in debug builds), copied whole with its
    /// quotes and colon: the notification renderer's ~20 names per object cost one copy each.
    public mutating func key(literal k: StaticString) {
        separate()
        assert(k.hasPointerRepresentation && !UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount).contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C })
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        if depth > 0 { setComma(false) }
    }

    public mutating func string(_ s: String) { separate(); appendQuoted(s) }
    public mutating func bool(_ v: Bool) {
        separate()
        if v { append4(0x74, 0x72, 0x75, 0x65) } else { append4(0x66, 0x61, 0x6C, 0x73); bytes.append(0x65) }
    }
    public mutating func null() { separate(); append4(0x6E, 0x75, 0x6C, 0x6C) }
    public mutating func number(_ v: Int) { separate(); appendDecimal(Int64(v)) }
    public mutating func number(_ v: Double) {
        separate()
        Self.appendNumber(v, to: &bytes)
    }
    /// `v` rounded to hundredths, the same text `number((v * 100).rounded() / 100)` writes, without its
    /// `Double.description` String (a heap allocation per beacon sighting's distance).
    public mutating func number(hundredths v: Double) {
        let scaled = (v * 100).rounded()
        // Past 1e15 hundredths Double's own text may turn to exponent form: leave those to it.
        guard scaled.isFinite, abs(scaled) < 1e15 else { number(scaled / 100); return }
        let k = Int64(scaled)
        guard k % 100 != 0 else { number(Int(k / 100)); return }
        separate()
        if k < 0 { bytes.append(UInt8(ascii: "-")) }
        let m = k.magnitude
        appendDecimal(Int64(m / 100))
        bytes.append(UInt8(ascii: "."))
        let cents = UInt8(m % 100)
        bytes.append(48 + cents / 10)
        if cents % 10 != 0 { bytes.append(48 + cents % 10) }
    }
    public mutating func field(literal k: StaticString, hundredths v: Double) { key(literal: k); number(hundredths: v) }

    /// A value whose text the caller appends itself (e.g. a timestamp in RFC 3339 form): the separator first.
    public mutating func rawValue(_ append: (inout [UInt8]) -> Void) {
        separate()
        append(&bytes)
    }

    public mutating func value(_ v: JSONValue) {
        switch v {
        case .null: null()
        case .bool(let b): bool(b)
        case .number(let d): number(d)
        case .string(let s): string(s)
        case .array(let items):
            beginArray()
            for item in items { value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for m in members { key(m.key); value(m.value) }
            endObject()
        }
    }

    /// Convenience for `key` followed by a value.
    public mutating func field(_ k: String, _ s: String) { key(k); string(s) }
    public mutating func field(_ k: String, _ v: Double) { key(k); number(v) }
    public mutating func field(_ k: String, _ v: Int) { key(k); number(v) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); bool(v) }
    public mutating func field(literal k: StaticString, _ s: String) { key(literal: k); string(s) }
    public mutating func field(literal k: StaticString, _ v: Double) { key(literal: k); number(v) }
    public mutating func field(literal k: StaticString, _ v: Int) { key(literal: k); number(v) }
    public mutating func field(literal k: StaticString, _ v: Bool) { key(literal: k); bool(v) }

    // MARK: Levels

    private mutating func push() {
        if depth >= 64 { deep.append(commas >> 63 != 0) }
        commas <<= 1
        depth += 1
    }

    private mutating func pop() {
        depth -= 1
        commas >>= 1
        if depth >= 64 { commas |= (deep.removeLast() ? 1 : 0) << 63 }
    }

    @inline(__always) private mutating func setComma(_ on: Bool) {
        if on { commas |= 1 } else { commas &= ~1 }
    }

    @inline(__always) private mutating func separate() {
        guard depth > 0 else { return }
        if commas & 1 != 0 { bytes.append(UInt8(ascii: ",")) } else { commas |= 1 }
    }

    // MARK: Text

    @inline(__always) private mutating func append4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        bytes.append(a); bytes.append(b); bytes.append(c); bytes.append(d)
    }

    private mutating func appendDecimal(_ v: Int64) { Self.appendDecimal(v, to: &bytes) }

    // MARK: Appending to bytes directly
    //
    // For renderers that know their document's shape when compiling (the notification): constant runs of JSON go
    // in as one copy each, with no separator bookkeeping per member.

    /// `s` verbatim: JSON text known when compiling.
    @inline(__always)
    public static func appendLiteral(_ s: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `s` as a JSON string, quoted and escaped.
    public static func appendQuoted(_ s: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `s` with JSON escapes, no quotes (a piece of a longer string value).
    public static func appendEscaped(_ s: String, to bytes: inout [UInt8]) {
        var s = s
        s.withUTF8 { appendEscaped($0, to: &bytes) }
    }

    /// A number as `number(_:)` writes it (integral values without ".0", non-finite as null).
    public static func appendNumber(_ v: Double, to bytes: inout [UInt8]) {
        guard v.isFinite else { appendLiteral("null", to: &bytes); return }
        if v == v.rounded(), abs(v) < 9_007_199_254_740_992 {
            appendDecimal(Int64(v), to: &bytes)
        } else {
            // Through the cursor's formatter: the same text as `description`, without its String.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONCursor.numberCapacity) { text in
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<JSONCursor.writeNumber(v, into: text.baseAddress!)]))
            }
        }
    }

    /// Decimal digits of `v`, without a String in between.
    public static func appendDecimal(_ v: Int64, to bytes: inout [UInt8]) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        guard m >= 10 else { bytes.append(UInt8(truncatingIfNeeded: m) + 48); return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 20
            while m > 0 {
                n -= 1
                digits[n] = UInt8(truncatingIfNeeded: m % 10) + 48
                m /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[n...]))
        }
    }

    private mutating func appendQuoted(_ s: String) { Self.appendQuoted(s, to: &bytes) }

    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        forEachEscapedPiece(utf8, run: { bytes.append(contentsOf: $0) }, escape: { bytes.append(contentsOf: $0) })
    }

    /// `utf8` as the pieces of its JSON escaping, in order: runs that need no escaping (the usual case: ASCII
    /// names and text), found eight bytes at a time and handed over whole, and one escape sequence for each `"`,
    /// `\` or control character. Bytes ≥ 0x80 (UTF-8) pass through. Shared by the array writer and `JSONCursor`.
    @inlinable @inline(__always)
    public static func forEachEscapedPiece(_ utf8: UnsafeBufferPointer<UInt8>, run: (UnsafeBufferPointer<UInt8>) -> Void,
                                    escape: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0, i = 0
        while i < count {
            // Eight bytes at a time: any byte < 0x20, == 0x22 or == 0x5C stops the fast scan.
            while i + 8 <= count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if Self.needsEscape(word) { break }
                i += 8
            }
            // Fewer than eight left: the string's last eight bytes (overlapping some already checked) as one word.
            if i + 8 > count, count >= 8,
               !Self.needsEscape(UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self)) {
                i = count
            }
            guard i < count else { break }
            let c = base[i]
            guard c < 0x20 || c == 0x22 || c == 0x5C else { i += 1; continue }
            if i > runStart { run(UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { e in
                e[0] = 0x5C
                switch c {
                case 0x22: e[1] = 0x22; escape(UnsafeBufferPointer(rebasing: e[0..<2]))
                case 0x5C: e[1] = 0x5C; escape(UnsafeBufferPointer(rebasing: e[0..<2]))
                case 0x0A: e[1] = UInt8(ascii: "n"); escape(UnsafeBufferPointer(rebasing: e[0..<2]))
                case 0x0D: e[1] = UInt8(ascii: "r"); escape(UnsafeBufferPointer(rebasing: e[0..<2]))
                case 0x09: e[1] = UInt8(ascii: "t"); escape(UnsafeBufferPointer(rebasing: e[0..<2]))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    e[1] = UInt8(ascii: "u"); e[2] = 48; e[3] = 48
                    e[4] = hex.utf8Start[Int(c >> 4)]; e[5] = hex.utf8Start[Int(c & 15)]
                    escape(UnsafeBufferPointer(e))
                }
            }
            i += 1
            runStart = i
        }
        if count > runStart { run(UnsafeBufferPointer(start: base + runStart, count: count - runStart)) }
    }

    /// Whether any of the eight bytes is < 0x20, `"` or `\` (SWAR: a zero byte after XOR marks a match).
    @inlinable @inline(__always) public static func needsEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // Bytes < 0x20: subtracting 0x20 borrows into the high bit, for bytes that had it clear.
        let control = (w &- ones &* 0x20) & ~w & highs
        let q = w ^ (ones &* 0x22), b = w ^ (ones &* 0x5C)
        let quote = (q &- ones) & ~q & highs
        let backslash = (b &- ones) & ~b & highs
        return (control | quote | backslash) != 0
    }
}

extension JSONValue {
    /// Compact JSON text of this value.
    public var jsonText: String {
        var w = JSONWriter()
        w.value(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
