import JSON
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
        do {
            return try PercentDecoding.decode(raw)
        } catch {
            switch error {
            case .malformedEscape:
                throw Problem(.badRequest, title: "Bad path", detail: "the \(name) in the path has a malformed percent escape (expected %XX)")
            case .notUTF8(let bad, let count):
                throw Problem(.badRequest, title: "Invalid UTF-8",
                              detail: "the \(name) in the path is not UTF-8 once percent-decoded (byte \(bad) of \(count))")
            }
        }
    }
}
