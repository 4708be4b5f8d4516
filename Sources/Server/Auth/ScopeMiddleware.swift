import Hummingbird

/// A route group's requirement on the caller's scope: the routes are registered behind it, so whatever spelling of a
/// path reaches them passes through it (as with `BackPressureMiddleware`); a valid credential of another scope is a
/// 403 naming the scopes that would do.
struct ScopeMiddleware: RouterMiddleware {
    let access: RouteAccess

    func handle(_ request: Request, context: APIContext, next: (Request, APIContext) async throws -> Response) async throws -> Response {
        guard let credential = context.credential else {
            // Only `/healthz` passes the credential middleware without one, and it is behind no scope.
            throw Problem.unauthorized(basic: false, invalid: false)
        }
        guard credential.allows(access) else {
            ServerMetrics().authenticationRefused("scope")
            throw Problem.forbidden(credential, needs: access)
        }
        return try await next(request, context)
    }
}
