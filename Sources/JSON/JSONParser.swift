/// A strict RFC 8259 JSON reader over bytes. Errors carry the byte offset, so ingest can report "line 12, byte 40".
public struct JSONParser {
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        /// Set for a key that occurs twice in one object: the key's path (`trigger.region.radius`, `[1].device`).
        public var duplicateKeyPath: String?
        /// The text is not UTF-8 (rather than not JSON).
        public var isInvalidUTF8: Bool { reason.hasPrefix(Self.invalidUTF8) }
        static let invalidUTF8 = "invalid UTF-8"
        public var description: String {
            duplicateKeyPath.map { "at byte \(offset): \(reason) (at \($0))" } ?? "at byte \(offset): \(reason)"
        }

        public init(offset: Int, reason: String, duplicateKeyPath: String? = nil) {
            self.offset = offset
            self.reason = reason
            self.duplicateKeyPath = duplicateKeyPath
        }

        /// The same error seen from the enclosing value: its key or index goes in front of the path.
        func inside(_ component: String) -> Error {
            guard let path = duplicateKeyPath else { return self }
            var e = self
            e.duplicateKeyPath = component + (path.hasPrefix("[") ? "" : ".") + path
            return e
        }
    }

    /// Nesting deeper than this is refused rather than risking the stack on hostile input.
    public static let maximumDepth = 512

    public static func parse(_ text: String) throws(Error) -> JSONValue {
        var copy = text
        let result = copy.withUTF8 { buffer in Result { () throws(Error) in try parse(UnsafeRawBufferPointer(buffer)) } }
        return try result.get()
    }

    public static func parse(_ bytes: [UInt8]) throws(Error) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(Error) in try parse(buffer) } }
        return try result.get()
    }

    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(Error) -> JSONValue {
        var p = JSONParser(bytes: bytes)
        p.skipWhitespace()
        // A UTF-8 byte order mark is tolerated at the very start.
        if p.i == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.i = 3; p.skipWhitespace() }
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.i == bytes.count else { throw p.fail("unexpected text after the JSON value") }
        return v
    }

    let b: UnsafeRawBufferPointer
    var i = 0

    init(bytes: UnsafeRawBufferPointer) { self.b = bytes }

    func fail(_ reason: String) -> Error { Error(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < b.count {
            let c = b[i]
            if c == 32 || c == 9 || c == 10 || c == 13 { i += 1 } else { break }
        }
    }

    mutating func value(depth: Int) throws(Error) -> JSONValue {
        guard depth < JSONParser.maximumDepth else { throw fail("nested deeper than \(JSONParser.maximumDepth) levels") }
        guard i < b.count else { throw fail("unexpected end of input, expected a value") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(key: String, value: JSONValue)] = []
            // Keys seen, once the object is too large for a linear search to be cheap.
            var keys: Set<String>?
            skipWhitespace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
                let keyStart = i
                let key = try string()
                // One rule for every input: a repeated key is refused, never read as its first or last value.
                if members.count < 16 ? members.contains(where: { $0.key == key }) : !(keys!.insert(key).inserted) {
                    throw Error(offset: keyStart, reason: "duplicate key '\(key)'", duplicateKeyPath: key)
                }
                if members.count == 15 { keys = Set(members.map(\.key) + [key]) }
                skipWhitespace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after member name") }
                i += 1
                skipWhitespace()
                let member: JSONValue
                do { member = try value(depth: depth + 1) } catch { throw error.inside(key) }
                members.append((key, member))
                skipWhitespace()
                guard i < b.count else { throw fail("unexpected end of input inside an object") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}' in an object")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipWhitespace()
                do { items.append(try value(depth: depth + 1)) } catch { throw error.inside("[\(items.count)]") }
                skipWhitespace()
                guard i < b.count else { throw fail("unexpected end of input inside an array") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']' in an array")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true"); return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw fail("unexpected character '\(Unicode.Scalar(b[i]))'")
        }
    }

    mutating func literal(_ word: StaticString) throws(Error) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { throw fail("unexpected end of input") }
        let p = word.utf8Start
        for k in 0..<n where b[i + k] != p[k] { throw fail("invalid literal, expected \(word)") }
        i += n
    }

    mutating func number() throws(Error) -> Double {
        let start = i
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number") }
        if b[i] == 48 {
            i += 1
            if i < b.count, b[i] >= 48, b[i] <= 57 { throw fail("leading zeros are not allowed in a number") }
        }
        while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("a digit must follow the decimal point") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("a digit must follow the exponent") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        guard let v = NumberParsing.double(UnsafeRawBufferPointer(rebasing: b[start..<i])) else {
            throw Error(offset: start, reason: "invalid number")
        }
        return v
    }

    mutating func string() throws(Error) -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes. Bytes above 0x7F are checked as UTF-8 once the string's end is known.
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let bytes = UnsafeRawBufferPointer(rebasing: b[start..<i])
                if !ascii, let bad = UTF8Validation.firstInvalidByte(in: bytes) {
                    throw Error(offset: start + bad, reason: Error.invalidUTF8 + " in a string")
                }
                let s = String(decoding: bytes, as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw fail("control character inside a string") }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        var out = [UInt8](UnsafeRawBufferPointer(rebasing: b[start..<i]))
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                // Escapes only ever add well-formed UTF-8: a bad byte is the input's.
                if let bad = UTF8Validation.firstInvalidByte(in: out) {
                    throw Error(offset: start, reason: Error.invalidUTF8 + " in a string (byte \(bad) of its text)")
                }
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw fail("control character inside a string") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { break }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired UTF-16 surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("invalid UTF-16 low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw fail("unpaired UTF-16 surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw fail("invalid escape '\\\(Unicode.Scalar(e))'")
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws(Error) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}
