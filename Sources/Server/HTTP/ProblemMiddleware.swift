import Hummingbird
import Inputs
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error that escapes a handler into a problem document: Hummingbird's own (unknown route, body over
/// the limit) keep their status, a client's malformed or oversized body is a 4xx, anything else is a 500 whose
/// detail is logged, not sent.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            if (400..<500).contains(problem.status.code) { ServerMetrics().clientError(status: problem.status.code) }
            throw problem
        } catch let error as HTTPError {
            ServerMetrics().clientError(status: error.status.code)
            let detail: String
            switch error.status {
            case .notFound: detail = "no route for \(request.method) \(request.uri.path)"
            case .contentTooLarge: detail = "the request body is larger than this server accepts"
            default: detail = error.body ?? error.status.reasonPhrase
            }
            throw Problem(error.status, title: error.status.reasonPhrase, detail: detail)
        } catch {
            // The client's fault (a body over the limit, cut off, or badly chunked): its 4xx, logged at debug only.
            if let problem = Self.clientProblem(error) {
                ServerMetrics().clientError(status: problem.status.code)
                context.logger.debug("bad request", metadata: ["error": "\(error)", "status": "\(problem.status.code)"])
                throw problem
            }
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw Problem(.internalServerError, title: "Internal error", detail: "the server failed to handle the request")
        }
    }

    /// The problem for an error the client caused while its body was read, or nil for the server's own.
    static func clientProblem(_ error: any Error) -> Problem? {
        switch error {
        case let e as IngestReadError:
            return Problem(e)
        case let e as NIOTooManyBytesError:
            return e.maxBytes.map { Problem.tooLarge(limit: $0) }
                ?? Problem(.contentTooLarge, title: "Body too large", detail: "the request body is larger than this server accepts")
        case let e as HTTPParserError:
            return Problem.malformedHTTP(e)
        case let e as BodyTimeout:
            return Problem(.requestTimeout, title: "Request timeout", detail: e.description)
        default:
            return nil
        }
    }
}
