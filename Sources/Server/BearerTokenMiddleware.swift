import Hummingbird

/// Requires `Authorization: Bearer <token>` on everything but `/healthz` (a load balancer probes it without
/// credentials). The comparison takes the same time wherever the first difference is.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        let prefix = "Bearer "
        guard header.hasPrefix(prefix), Self.constantTimeEqual(Array(header.utf8.dropFirst(prefix.utf8.count)), token) else {
            throw Problem(.unauthorized, title: "Unauthorized", detail: "a valid bearer token is required")
        }
        return try await next(request, context)
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
