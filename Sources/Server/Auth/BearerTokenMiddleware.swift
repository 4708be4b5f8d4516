import Foundation
import Hummingbird

/// Requires `Authorization: Bearer <token>` on everything but `/healthz` (a load balancer probes it without
/// credentials), or HTTP Basic credentials whose password is the token (any user name): the OwnTracks app and
/// Traccar Client can send only Basic. The comparison takes the same time wherever the first difference is.
/// The cluster's API (`ClusterServer`); the single instance checks scoped credentials (`CredentialMiddleware`).
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        guard let credentials = Self.bearerCredentials(header) ?? Self.basicPassword(header), Self.constantTimeEqual(credentials, token) else {
            throw Problem.unauthorized(basic: CredentialMiddleware.appPaths.contains(request.uri.path), invalid: !header.isEmpty)
        }
        return try await next(request, context)
    }

    /// The token of `Bearer TOKEN`; the scheme is case-insensitive (RFC 9110 §11.1), one or more spaces follow it.
    static func bearerCredentials(_ header: String) -> [UInt8]? {
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
        for k in 0..<scheme.count where bytes[k] | 0x20 != scheme[k] { return nil }
        return Array(bytes[scheme.count...].drop { $0 == UInt8(ascii: " ") })
    }

    /// The password of `Basic base64(user:password)` (RFC 7617); nil for any other scheme or a malformed value.
    static func basicPassword(_ header: String) -> [UInt8]? {
        let bytes = Array(header.utf8)
        let scheme = Array("basic".utf8)
        guard bytes.count > scheme.count, bytes[scheme.count] == UInt8(ascii: " ") else { return nil }
        for k in 0..<scheme.count where bytes[k] | 0x20 != scheme[k] { return nil }
        let encoded = String(decoding: bytes[scheme.count...].drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
        guard let data = Data(base64Encoded: encoded) else { return nil }
        let decoded = Array(data)
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return Array(decoded[(colon + 1)...])
    }

    /// Compares every byte of the longer input, so timing reveals at most the length.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | UInt8(truncatingIfNeeded: (a.count ^ b.count) >> 8)
        let n = max(a.count, b.count)
        for i in 0..<n {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0 && a.count == b.count
    }
}
