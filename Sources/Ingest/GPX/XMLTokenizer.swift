/// A small, allocation-light XML tokenizer for GPX: start and end tags with attributes, text with entities, comments,
/// CDATA, processing instructions and DOCTYPE skipped. Namespace prefixes are dropped from names (`gpxtpx:speed` is
/// `speed`). Malformed input ends with an error that names the line and byte offset; nothing here can crash.
struct XMLTokenizer {
    enum Token {
        case start(name: Substring, attributes: [(name: Substring, value: String)], selfClosing: Bool)
        case end(name: Substring)
        case text(String)
    }

    struct Failure: Error {
        var line: Int
        var offset: Int
        var reason: String
    }

    private let bytes: [UInt8]
    private var i = 0
    private(set) var line = 1

    init(_ bytes: [UInt8]) {
        var b = bytes
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { b.removeFirst(3) }
        self.bytes = b
    }

    var offset: Int { i }

    private func fail(_ reason: String) -> Failure { Failure(line: line, offset: i, reason: reason) }

    private mutating func advance() {
        if bytes[i] == 10 { line += 1 }
        i += 1
    }

    private mutating func skip(past terminator: [UInt8]) throws(Failure) {
        while i + terminator.count <= bytes.count {
            if bytes[i] == terminator[0], Array(bytes[i..<(i + terminator.count)]) == terminator {
                for _ in 0..<terminator.count { advance() }
                return
            }
            advance()
        }
        throw fail("unterminated construct, expected \(String(decoding: terminator, as: UTF8.self))")
    }

    private func localName(_ start: Int, _ end: Int) -> Substring {
        var s = start
        for k in start..<end where bytes[k] == UInt8(ascii: ":") { s = k + 1 }
        return Substring(String(decoding: bytes[s..<end], as: UTF8.self))
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        !(c == 32 || c == 9 || c == 10 || c == 13 || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
            || c == UInt8(ascii: "<"))
    }

    /// The next token, or nil at the end of the document.
    mutating func next() throws(Failure) -> Token? {
        while i < bytes.count {
            if bytes[i] != UInt8(ascii: "<") {
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "<") { advance() }
                let raw = bytes[start..<i]
                if raw.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) { continue }
                return .text(try decodeEntities(raw))
            }
            // Markup.
            if i + 3 < bytes.count, bytes[i + 1] == UInt8(ascii: "!"), bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                try skip(past: Array("-->".utf8))
                continue
            }
            if i + 8 < bytes.count, Array(bytes[i..<(i + 9)]) == Array("<![CDATA[".utf8) {
                for _ in 0..<9 { advance() }
                let start = i
                try skip(past: Array("]]>".utf8))
                return .text(String(decoding: bytes[start..<(i - 3)], as: UTF8.self))
            }
            if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "?") {
                try skip(past: Array("?>".utf8))
                continue
            }
            if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "!") {
                try skip(past: Array(">".utf8))
                continue
            }
            advance()  // <
            let isEnd = i < bytes.count && bytes[i] == UInt8(ascii: "/")
            if isEnd { advance() }
            let nameStart = i
            while i < bytes.count, Self.isNameByte(bytes[i]) { advance() }
            guard i > nameStart else { throw fail("expected an element name after '<'") }
            let name = localName(nameStart, i)
            if isEnd {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>' to close </\(name)>") }
                advance()
                return .end(name: name)
            }
            var attributes: [(name: Substring, value: String)] = []
            while true {
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated start tag <\(name)>") }
                if bytes[i] == UInt8(ascii: ">") {
                    advance()
                    return .start(name: name, attributes: attributes, selfClosing: false)
                }
                if bytes[i] == UInt8(ascii: "/") {
                    advance()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>' after '/' in <\(name)>") }
                    advance()
                    return .start(name: name, attributes: attributes, selfClosing: true)
                }
                let aStart = i
                while i < bytes.count, Self.isNameByte(bytes[i]) { advance() }
                guard i > aStart else { throw fail("malformed attribute in <\(name)>") }
                let aName = localName(aStart, i)
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("expected '=' after attribute \(aName)") }
                advance()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                    throw fail("attribute \(aName) value must be quoted")
                }
                let quote = bytes[i]
                advance()
                let vStart = i
                while i < bytes.count, bytes[i] != quote { advance() }
                guard i < bytes.count else { throw fail("unterminated value of attribute \(aName)") }
                let value = try decodeEntities(bytes[vStart..<i])
                advance()
                attributes.append((aName, value))
            }
        }
        return nil
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { advance() }
    }

    private func decodeEntities(_ raw: ArraySlice<UInt8>) throws(Failure) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var k = raw.startIndex
        while k < raw.endIndex {
            let c = raw[k]
            guard c == UInt8(ascii: "&") else { out.append(c); k += 1; continue }
            guard let semi = raw[k...].firstIndex(of: UInt8(ascii: ";")), semi - k <= 10 else {
                throw fail("unterminated entity reference")
            }
            let name = String(decoding: raw[(k + 1)..<semi], as: UTF8.self)
            switch name {
            case "amp": out.append(UInt8(ascii: "&"))
            case "lt": out.append(UInt8(ascii: "<"))
            case "gt": out.append(UInt8(ascii: ">"))
            case "quot": out.append(UInt8(ascii: "\""))
            case "apos": out.append(UInt8(ascii: "'"))
            default:
                var value: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") { value = UInt32(name.dropFirst(2), radix: 16) }
                else if name.hasPrefix("#") { value = UInt32(name.dropFirst(), radix: 10) }
                guard let value, let scalar = Unicode.Scalar(value) else { throw fail("unknown entity &\(name);") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            k = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
