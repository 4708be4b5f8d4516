import Delivery
import Hummingbird

/// Refuses ingest (anything that can fire notifications) with 503 and `Retry-After` while the outbox is at its
/// bound, before the body is read or anything evaluated: the client keeps its data and sends it again later.
struct BackPressureMiddleware<Context: RequestContext>: RouterMiddleware {
    let pressure: OutboxPressure
    /// The ingest endpoints. A new input that can fire notifications belongs here.
    static var ingestPaths: Set<String> { ["/v1/fixes", "/v1/sightings"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .post, Self.ingestPaths.contains(request.uri.path), let reason = pressure.refusal() {
            var problem = Problem(.serviceUnavailable, title: "Outbox full", detail: reason)
            problem.retryAfter = pressure.retryAfterSeconds
            throw problem
        }
        return try await next(request, context)
    }
}
