import Crypto
import Storage

/// A credential's secret, `gt_<id>_<random>`: the id is public and names the stored row, so a check is one lookup
/// and one hash whatever the number of credentials; the 32 random bytes are what make it unguessable. Stored as
/// HMAC-SHA256 keyed with a random salt of its own, so equal secrets never store alike and a copy of the database
/// holds nothing that can be sent.
enum CredentialSecret {
    static let prefix = "gt_"
    static let idBytes = 6
    static let randomBytes = 32
    static let saltBytes = 16

    /// A new id and secret; the id is new unless `taken` says otherwise (then another is drawn).
    static func make(taken: (String) throws -> Bool) rethrows -> (id: String, secret: String) {
        var id = hex(random(idBytes))
        while try taken(id) { id = hex(random(idBytes)) }
        return (id, prefix + id + "_" + base64URL(random(randomBytes)))
    }

    /// The id of a presented secret, or nil when it does not have the credential form (the configured token, say).
    static func id(of secret: [UInt8]) -> String? {
        let p = Array(prefix.utf8)
        let idLength = idBytes * 2
        guard secret.count > p.count + idLength + 1, Array(secret[..<p.count]) == p,
              secret[p.count + idLength] == UInt8(ascii: "_") else { return nil }
        let id = secret[p.count..<(p.count + idLength)]
        guard id.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) else {
            return nil
        }
        return String(decoding: id, as: UTF8.self)
    }

    static func hash(_ secret: [UInt8], salt: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: secret, using: SymmetricKey(data: salt)))
    }

    /// Whether `secret` is the one `hash` was made from; the comparison takes the same time wherever they differ.
    static func matches(_ secret: [UInt8], salt: [UInt8], hash: [UInt8]) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(hash, authenticating: secret, using: SymmetricKey(data: salt))
    }

    static func random(_ count: Int) -> [UInt8] {
        // SystemRandomNumberGenerator reads the kernel's CSPRNG (getrandom).
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// RFC 4648 §5 without padding: safe in a header, a URL and a shell.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var k = 0
        while k < bytes.count {
            let n = min(3, bytes.count - k)
            var v = UInt32(bytes[k]) << 16
            if n > 1 { v |= UInt32(bytes[k + 1]) << 8 }
            if n > 2 { v |= UInt32(bytes[k + 2]) }
            for j in 0...n { out.append(alphabet[Int((v >> (18 - 6 * UInt32(j))) & 63)]) }
            k += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
