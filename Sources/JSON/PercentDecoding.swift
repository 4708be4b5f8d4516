/// RFC 3986 percent-decoding (`+` stays a plus), shared by path parameters and `mqtt://` sink specifications.
public enum PercentDecoding {
    public enum Failure: Error, Sendable, Equatable {
        /// A `%` not followed by two hex digits.
        case malformedEscape
        /// The decoded bytes are not UTF-8: the offset of the first bad byte and the decoded length.
        case notUTF8(offset: Int, length: Int)
    }

    public static func decode(_ text: some StringProtocol) throws(Failure) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let c = it.next() {
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { throw .malformedEscape }
            bytes.append(h << 4 | l)
        }
        if let bad = UTF8Validation.firstInvalidByte(in: bytes) { throw .notUTF8(offset: bad, length: bytes.count) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
