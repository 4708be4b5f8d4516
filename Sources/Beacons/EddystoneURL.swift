/// Eddystone-URL's compressed URL encoding (also UriBeacon's): a scheme-prefix byte, then printable ASCII with
/// bytes 0x00–0x0D standing for common top-level domains.
///
/// Tables from the Eddystone-URL specification (eddystone-url/README.md, "URL Scheme Prefix" and "HTTP URL
/// encoding"); bytes 0x0E–0x20 and 0x7F–0xFF are reserved, so a URL containing them is not decoded.
public enum EddystoneURL {
    public static let schemePrefixes = ["http://www.", "https://www.", "http://", "https://"]
    public static let expansions = [".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
                                    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov"]

    /// Bytes → URL: `bytes` starts with the scheme-prefix byte. nil on an unknown prefix or a reserved byte.
    public static func expand(_ bytes: ArraySlice<UInt8>) -> String? {
        guard let first = bytes.first, Int(first) < schemePrefixes.count else { return nil }
        var out = Array(schemePrefixes[Int(first)].utf8)
        for b in bytes.dropFirst() {
            if Int(b) < expansions.count {
                out.append(contentsOf: expansions[Int(b)].utf8)
            } else if (0x21...0x7E).contains(b) {
                out.append(b)
            } else {
                return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func expand(_ bytes: [UInt8]) -> String? { expand(bytes[...]) }

    /// URL → bytes (scheme-prefix byte first). The scheme, `www.` and host are matched case-insensitively and written
    /// lower-case; the path keeps its case. A top-level domain from the table is replaced only at the end of the
    /// host (with the following `/` folded into codes 0x00–0x06), as AltBeacon's compressor does. nil for schemes
    /// other than http/https or characters outside printable ASCII. The result is not limited to the 17 bytes an
    /// Eddystone-URL frame can carry: that is the advertiser's check.
    public static func compress(_ url: String) -> [UInt8]? {
        let u = Array(url.utf8)
        func lower(_ c: UInt8) -> UInt8 { (65...90).contains(c) ? c + 32 : c }
        func hasPrefix(_ p: String, at i: Int) -> Bool {
            let p = Array(p.utf8)
            guard u.count - i >= p.count else { return false }
            return (0..<p.count).allSatisfy { lower(u[i + $0]) == p[$0] }
        }
        var i: Int
        var scheme: UInt8
        if hasPrefix("https://", at: 0) { i = 8; scheme = 3 } else if hasPrefix("http://", at: 0) { i = 7; scheme = 2 } else {
            return nil
        }
        if hasPrefix("www.", at: i) { i += 4; scheme -= 2 }
        guard u[i...].allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        let slash = u[i...].firstIndex(of: UInt8(ascii: "/")) ?? u.count
        let host = u[i..<slash].map(lower)
        let path = u[slash...]
        var out: [UInt8] = [scheme]
        var tld: (code: Int, length: Int)?
        for k in 7..<expansions.count {
            let t = Array(expansions[k].utf8)
            if host.count > t.count, Array(host.suffix(t.count)) == t { tld = (k, t.count); break }
        }
        if let tld {
            out.append(contentsOf: host.dropLast(tld.length))
            if path.isEmpty {
                out.append(UInt8(tld.code))
            } else {
                out.append(UInt8(tld.code - 7))  // ".com/" etc.: the code absorbs the slash
                out.append(contentsOf: path.dropFirst())
            }
        } else {
            out.append(contentsOf: host)
            out.append(contentsOf: path)
        }
        return out
    }
}
