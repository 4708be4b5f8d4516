import Hummingbird
import TriggerEngine

/// A path parameter as text: percent-decoded (RFC 3986; `+` stays a plus in a path), and refused with 400 when an
/// escape is malformed or the decoded bytes are not UTF-8. So `/v1/requests/a%2Fb%20%C3%A9` names `a/b é`, the
/// identifier a body can carry.
enum PathParameter {
    static func require(_ name: String, _ context: some RequestContext) throws(Problem) -> String {
        guard let raw = context.parameters.get(name) else {
            throw Problem(.badRequest, title: "Bad path", detail: "the path has no \(name)")
        }
        return try decode(raw, name: name)
    }

    static func decode(_ raw: some StringProtocol, name: String) throws(Problem) -> String {
        guard raw.utf8.contains(UInt8(ascii: "%")) || raw.utf8.contains(where: { $0 >= 0x80 }) else { return String(raw) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var it = raw.utf8.makeIterator()
        while let c = it.next() {
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else {
                throw Problem(.badRequest, title: "Bad path", detail: "the \(name) in the path has a malformed percent escape (expected %XX)")
            }
            bytes.append(h << 4 | l)
        }
        guard let bad = UTF8Validation.firstInvalidByte(in: bytes) else { return String(decoding: bytes, as: UTF8.self) }
        throw Problem(.badRequest, title: "Invalid UTF-8",
                      detail: "the \(name) in the path is not UTF-8 once percent-decoded (byte \(bad) of \(bytes.count))")
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
