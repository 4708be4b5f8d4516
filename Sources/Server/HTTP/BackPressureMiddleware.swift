import Delivery
import Hummingbird

/// Refuses ingest (anything that can fire notifications) with 503 and `Retry-After` while the outbox is at its
/// bound, before the body is read or anything evaluated: the client keeps its data and sends it again later.
/// It is a route middleware: the ingest routes are registered behind it (`APIRoutes`), so whatever spelling of a
/// path reaches them (`/v1/fixes/`, `/v1//fixes`) passes through it; the path text is never compared.
struct BackPressureMiddleware<Context: RequestContext>: RouterMiddleware {
    let pressure: OutboxPressure

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let reason = pressure.refusal() {
            var problem = Problem(.serviceUnavailable, title: "Outbox full", detail: reason)
            problem.retryAfter = pressure.retryAfterSeconds
            throw problem
        }
        return try await next(request, context)
    }
}
