import Hummingbird
import Storage

/// Authenticates every request but `/healthz` (a load balancer probes it without credentials): a bearer token, or
/// the password of HTTP Basic credentials (any user name; the OwnTracks app and Traccar Client send only Basic).
/// Sets the context's credential for `ScopeMiddleware` and the handlers; a request without a valid one is a 401
/// with `WWW-Authenticate`. A server with no token and no stored credential lets every request through as before.
struct CredentialMiddleware: RouterMiddleware {
    let credentials: Credentials

    /// Where the apps post, and the console a browser opens: their 401 also offers Basic.
    static let appPaths: Set<String> = ["/", "/console", "/v1/owntracks", "/v1/osmand"]

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" { return try await next(request, context) }
        var context = context
        guard credentials.isRequired else {
            context.credential = .open
            return try await next(request, context)
        }
        let metrics = ServerMetrics()
        let header = request.headers[.authorization] ?? ""
        let basic = Self.appPaths.contains(request.uri.path)
        guard let secret = BearerTokenMiddleware<APIContext>.bearerCredentials(header) ?? BearerTokenMiddleware<APIContext>.basicPassword(header) else {
            metrics.authenticationRefused(Credentials.Refusal.missing.rawValue)
            throw Problem.unauthorized(basic: basic, invalid: false)
        }
        switch try credentials.verify(secret) {
        case .failure(let refusal):
            metrics.authenticationRefused(refusal.rawValue)
            throw Problem.unauthorized(basic: basic, invalid: true)
        case .success(let credential):
            metrics.authenticated(scope: credential.scope.rawValue)
            context.credential = credential
            return try await next(request, context)
        }
    }
}
