#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads one JSON document piece by piece, for a decoder that knows the document's shape and builds its values
/// straight from the bytes (no `JSONValue` tree). The reading counterpart of `JSONCursor`: that one writes JSON text
/// of a known shape through a raw pointer, this one reads it.
///
/// It reads with `JSONParser`'s own scanners (strings, numbers, literals, whole values), so what it accepts and the
/// values it gives are the tree's. It reports no errors: every method returns nil or false where the text is not
/// what the caller expected or not JSON, and the caller then reads the document again through the tree, whose
/// errors are the ones users see. `nested` and `depth` keep the parser's nesting limit for values read whole.
public struct JSONStreamReader {
    var parser: JSONParser

    /// At the document's first value: leading whitespace and a UTF-8 byte order mark skipped as `JSONParser.parse`
    /// skips them.
    public init(_ bytes: UnsafeRawBufferPointer) {
        parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        if parser.i == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            parser.i = 3
            parser.skipWhitespace()
        }
    }

    /// The next byte after whitespace, not consumed; nil at the end.
    @inline(__always) public mutating func peek() -> UInt8? {
        parser.skipWhitespace()
        return parser.i < parser.b.count ? parser.b[parser.i] : nil
    }

    /// Consumes `byte` (after whitespace) if it is next.
    @inline(__always) public mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        parser.i += 1
        return true
    }

    /// Nothing but whitespace is left.
    public mutating func atEnd() -> Bool { peek() == nil }

    /// Where the next value starts (after whitespace), as a byte offset in the document.
    public mutating func valueStart() -> Int {
        parser.skipWhitespace()
        return parser.i
    }

    /// The byte offset just after what was read last.
    public var offset: Int { parser.i }

    /// The document's bytes in `range`, which hold whole values, as JSON text without the whitespace between tokens
    /// (strings are copied as they are): what `JSONValue.jsonText` writes for a document that was itself compact.
    public func compactText(_ range: Range<Int>) -> String {
        let b = parser.b
        return String(unsafeUninitializedCapacity: range.count) { out in
            var n = 0, inString = false, escaped = false
            for i in range {
                let c = b[i]
                if inString {
                    if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
                } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                    continue
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                }
                out[n] = c
                n += 1
            }
            return n
        }
    }

    /// A member name and its colon, as the raw bytes between the quotes: only a name without escapes (a name with
    /// one is never a known field as written, and the caller reads the document through the tree instead). The
    /// bytes are valid only while the document's buffer is.
    @inline(__always) public mutating func memberName() -> UnsafeRawBufferPointer? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let b = parser.b
        let start = parser.i
        var i = start
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") { break }
            // Escapes, control characters and non-ASCII bytes (no known name has any) go to the tree.
            if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
            i += 1
        }
        guard i < b.count else { return nil }
        parser.i = i + 1
        guard consume(UInt8(ascii: ":")) else { return nil }
        return UnsafeRawBufferPointer(rebasing: b[start..<i])
    }

    /// After a member or an element: true for a comma (another follows), false for `close`; nil for anything else.
    @inline(__always) public mutating func next(orClose close: UInt8) -> Bool? {
        if consume(UInt8(ascii: ",")) { return true }
        if consume(close) { return false }
        return nil
    }

    /// A string value; nil for anything else (a string the tree refuses, too).
    public mutating func string() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        do { return try parser.string() } catch { return nil }
    }

    /// A number value; nil for anything else.
    public mutating func number() -> Double? {
        guard let c = peek(), c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else { return nil }
        do { return try parser.number() } catch { return nil }
    }

    /// `null`, consumed if it is next.
    public mutating func null() -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        do { try parser.literal("null"); return true } catch { return false }
    }

    /// `true` or `false`; nil for anything else.
    public mutating func bool() -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): do { try parser.literal("true"); return true } catch { return nil }
        case UInt8(ascii: "f"): do { try parser.literal("false"); return false } catch { return nil }
        default: return nil
        }
    }

    /// A whole value as a tree, at nesting `depth` (the number of arrays and objects around it), for the parts of a
    /// document whose shape is free (`userInfo`, a GeoJSON geometry); nil where the tree's parser refuses it.
    public mutating func value(depth: Int) -> JSONValue? {
        parser.skipWhitespace()
        do { return try parser.value(depth: depth) } catch { return nil }
    }
}

extension UnsafeRawBufferPointer {
    /// These bytes are `name`'s: a member name matched without making a String of it.
    @inline(__always) public func isName(_ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        guard count == n, let base = baseAddress else { return n == 0 && count == 0 }
        return memcmp(base, name.utf8Start, n) == 0
    }
}
