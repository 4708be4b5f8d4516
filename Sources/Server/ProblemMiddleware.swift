import Hummingbird
import Logging

/// Turns every error that escapes a handler into a problem document: Hummingbird's own (unknown route, body over
/// the limit) keep their status, anything else is a 500 whose detail is logged, not sent.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as HTTPError {
            let detail: String
            switch error.status {
            case .notFound: detail = "no route for \(request.method) \(request.uri.path)"
            case .contentTooLarge: detail = "the request body is larger than this server accepts"
            default: detail = error.body ?? error.status.reasonPhrase
            }
            throw Problem(error.status, title: error.status.reasonPhrase, detail: detail)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw Problem(.internalServerError, title: "Internal error", detail: "the server failed to handle the request")
        }
    }
}
