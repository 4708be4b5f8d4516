import Hummingbird
import Inputs
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error that escapes a handler into a problem document: Hummingbird's own (unknown route, body over
/// the limit) keep their status, a client's malformed or oversized body is a 4xx, anything else is a 500 whose
/// detail is logged, not sent. Every 4xx is counted and logged (`RefusalLog`).
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            // A handler's own 4xx answer (a body of which no record could be read).
            if (400..<500).contains(response.status.code) {
                refused(request, Problem(response.status, title: response.status.reasonPhrase, detail: "answered by the handler"), context)
            }
            return response
        } catch let problem as Problem {
            if (400..<500).contains(problem.status.code) { refused(request, problem, context) }
            throw problem
        } catch let error as HTTPError {
            let detail: String
            switch error.status {
            case .notFound: detail = "no route for \(request.method) \(request.uri.path)"
            case .contentTooLarge: detail = "the request body is larger than this server accepts"
            default: detail = error.body ?? error.status.reasonPhrase
            }
            let problem = Problem(error.status, title: error.status.reasonPhrase, detail: detail)
            if (400..<500).contains(problem.status.code) { refused(request, problem, context) }
            throw problem
        } catch {
            // The client's fault (a body over the limit, cut off, or badly chunked): its 4xx.
            if let problem = Self.clientProblem(error) {
                refused(request, problem, context)
                throw problem
            }
            context.logger.error("request failed", metadata: ["error": "\(error)"])
            throw Problem(.internalServerError, title: "Internal error", detail: "the server failed to handle the request")
        }
    }

    /// Counted by status, and logged (`RefusalLog`).
    private func refused(_ request: Request, _ problem: Problem, _ context: Context) {
        ServerMetrics().clientError(status: problem.status.code)
        RefusalLog.shared.refused(method: "\(request.method)", path: request.uri.path, status: problem.status.code, title: problem.title,
                                  detail: problem.detail, logger: context.logger)
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
