/// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF. Input that fails is
/// rejected with the offset of the first bad byte, never replaced: two different byte strings must not become the
/// same text (U+FFFD), or two devices would become one.
public enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed sequence, or nil when all is valid.
    public static func firstInvalidByte(in b: UnsafeRawBufferPointer) -> Int? {
        let n = b.count
        var i = 0
        while i < n {
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            let length: Int
            if c & 0xE0 == 0xC0 {
                guard c >= 0xC2 else { return i }
                length = 2
            } else if c & 0xF0 == 0xE0 {
                length = 3
            } else if c & 0xF8 == 0xF0, c <= 0xF4 {
                length = 4
            } else {
                return i
            }
            guard i + length <= n else { return i }
            var scalar = UInt32(c) & (0x7F >> UInt32(length))
            for k in 1..<length {
                let d = b[i + k]
                guard d & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(d & 0x3F)
            }
            if length == 3, scalar < 0x800 || (0xD800...0xDFFF).contains(scalar) { return i }
            if length == 4, scalar < 0x10000 || scalar > 0x10FFFF { return i }
            i += length
        }
        return nil
    }

    public static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { firstInvalidByte(in: $0) }
    }

    /// The text of `bytes` when they are valid UTF-8.
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        firstInvalidByte(in: bytes) == nil ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
