/// Appends compact JSON to a byte buffer. Used for every NDJSON line GeoTrigger writes, so output is byte-stable
/// (member order as written, integral numbers without ".0") and golden files compare as text.
public struct JSONWriter {
    public var bytes: [UInt8]
    private var needsComma: [Bool] = []

    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    public mutating func key(_ k: String) {
        separate()
        appendQuoted(k)
        bytes.append(UInt8(ascii: ":"))
        if !needsComma.isEmpty { needsComma[needsComma.count - 1] = false }
    }

    public mutating func string(_ s: String) { separate(); appendQuoted(s) }
    public mutating func bool(_ v: Bool) { separate(); bytes.append(contentsOf: v ? Array("true".utf8) : Array("false".utf8)) }
    public mutating func null() { separate(); bytes.append(contentsOf: [110, 117, 108, 108]) }
    public mutating func number(_ v: Int) { separate(); bytes.append(contentsOf: Array(String(v).utf8)) }
    public mutating func number(_ v: Double) {
        separate()
        guard v.isFinite else { bytes.append(contentsOf: [110, 117, 108, 108]); return }
        if v == v.rounded(), abs(v) < 9_007_199_254_740_992 {
            bytes.append(contentsOf: Array(String(Int64(v)).utf8))
        } else {
            bytes.append(contentsOf: Array(v.description.utf8))
        }
    }
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

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func appendQuoted(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(0x5C); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(0x5C); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
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
