/// The page as it is written: UTF-8 appended in place, integers and JSON strings without an intermediate String each
/// (a large report writes millions of numbers).
struct ReportBytes {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func append(_ value: Int) {
        var v = value
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            if v == .min { append("9223372036854775808"); return }
            v = -v
        }
        if v < 10 { bytes.append(UInt8(48 + v)); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 { d[n] = UInt8(48 + v % 10); v /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { bytes.append(d[i]) }
        }
    }

    mutating func append(_ value: Int32) { append(Int(value)) }

    /// A JSON string that is also safe inside `<script>`: `<`, `>` and `&` are escaped, so no `</script>` can end it.
    mutating func json(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                append("\\u00")
                bytes.append(hex[Int(b >> 4)])
                bytes.append(hex[Int(b & 15)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Text for HTML content or a quoted attribute.
    mutating func html(_ text: String) {
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            case UInt8(ascii: "'"): append("&#39;")
            default: bytes.append(b)
            }
        }
    }

    /// One `,`: the page's most written text.
    mutating func comma() { bytes.append(UInt8(ascii: ",")) }

    mutating func comma(_ first: inout Bool) {
        if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
    }
}
