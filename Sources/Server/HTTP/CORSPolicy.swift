import Hummingbird

/// Cross-origin access for browsers (`--cors-origin`), off unless origins are configured. Only a request whose
/// `Origin` is one of them gets CORS headers, its own origin echoed: any other origin gets none (the browser then
/// refuses the response), and so does a request without `Origin`. Hummingbird's `CORSMiddleware` answers a
/// preflight from any origin with the allowed methods and headers; this one leaves such a preflight to the router.
///
/// It runs before the credential check: a preflight carries no `Authorization` (the browser sends it only on the
/// real request, which is checked as any other).
struct CORSPolicy: RouterMiddleware {
    typealias Context = APIContext

    let origins: Set<String>
    static let methods = "GET, POST, PUT, DELETE, OPTIONS"
    static let headers = "Authorization, Content-Type, Accept, Last-Event-ID"
    /// Response headers a script may read beyond the CORS-safelisted ones.
    static let exposed = "Retry-After, WWW-Authenticate"
    /// Seconds a browser may cache a preflight's answer.
    static let maxAge = "600"

    init(origins: [String]) { self.origins = Set(origins) }

    /// `text` as an origin (`scheme://host[:port]`, lowercased scheme and host, no path, no trailing slash), or nil.
    static func origin(_ text: String) -> String? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let authority = text[schemeEnd.upperBound...]
        guard ["http", "https"].contains(scheme), !authority.isEmpty,
              !authority.contains(where: { "/?#@ ".contains($0) }) else { return nil }
        return scheme + "://" + authority.lowercased()
    }

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: origin, .accessControlAllowMethods: Self.methods,
                .accessControlAllowHeaders: Self.headers, .accessControlMaxAge: Self.maxAge, .vary: "Origin",
            ])
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let problem as Problem {
            // The problem middleware inside throws its documents: they need the headers as much as a success does.
            response = try problem.response(from: request, context: context)
        }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = Self.exposed
        response.headers[values: .vary].append("Origin")
        return response
    }
}
