import JSON
import Hummingbird
import NIOHTTP1
import TriggerEngine

/// An RFC 9457 problem document (`application/problem+json`): every error the API returns is one of these, with a
/// detail precise enough to fix the request without reading the server's log.
public struct Problem: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var title: String
    public var detail: String
    /// Extra members (the JSON path of a bad field, the identifier of a bad request).
    public var extensions: [(String, String)]
    /// Seconds for a `Retry-After` header (a 503 the client should retry).
    public var retryAfter: Int?
    /// `WWW-Authenticate` challenges, one header field each (every 401 has at least one, RFC 9110 §11.6.1).
    public var challenges: [String] = []

    public init(_ status: HTTPResponse.Status, title: String, detail: String, extensions: [(String, String)] = []) {
        self.status = status
        self.title = title
        self.detail = detail
        self.extensions = extensions
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        for c in challenges { headers.append(.init(name: .wwwAuthenticate, value: c)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The document's JSON.
    var bytes: [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("type", "about:blank")
        w.field("title", title)
        w.field("status", Int(status.code))
        w.field("detail", detail)
        for (k, v) in extensions { w.field(k, v) }
        w.endObject()
        return w.bytes
    }

    static func malformedJSON(_ error: JSONParser.Error) -> Problem {
        // Well-formed but ambiguous: the body could be read two ways, so it is not read at all.
        if let path = error.duplicateKeyPath {
            return Problem(.unprocessableContent, title: "Duplicate key",
                           detail: "\(error.reason) at byte \(error.offset): each key may occur once in an object", extensions: [("path", path)])
        }
        if error.isInvalidUTF8 {
            return Problem(.badRequest, title: "Invalid UTF-8", detail: "the body is not UTF-8 text: \(error)")
        }
        return Problem(.badRequest, title: "Malformed JSON", detail: "the body is not valid JSON: \(error)")
    }

    static func invalidRequest(_ error: RequestError) -> Problem {
        var ext: [(String, String)] = [("path", error.path)]
        if let id = error.identifier { ext.append(("identifier", id)) }
        return Problem(.unprocessableContent, title: "Invalid notification request", detail: error.description, extensions: ext)
    }

    static func tooLarge(limit: Int) -> Problem {
        Problem(.contentTooLarge, title: "Body too large", detail: "the request body exceeds the limit of \(limit) bytes")
    }

    static let shuttingDown = Problem(
        .serviceUnavailable, title: "Shutting down",
        detail: "the server is shutting down and takes no more input; batches answered before were committed: resend the rest after it restarts")

    static func unavailable(_ reason: String) -> Problem {
        Problem(.serviceUnavailable, title: "Storage unavailable", detail: reason)
    }
}

extension Problem {
    /// A request the HTTP parser refused: its body ended early (the client closed the connection), a chunk size is
    /// not hexadecimal, a header or the URI is too long, the method is unknown.
    static func malformedHTTP(_ error: HTTPParserError) -> Problem {
        let detail: String
        switch error {
        case .invalidEOFState: detail = "the request ended before its body was complete (the connection closed mid-body)"
        case .invalidChunkSize: detail = "a chunk of the body has an invalid size line (expected hexadecimal digits)"
        case .headerOverflow: detail = "the request line or headers are longer than this server accepts"
        case .invalidMethod: detail = "unknown request method"
        default: detail = "the request is not valid HTTP/1.1: \(error)"
        }
        let status: HTTPResponse.Status = error == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        return Problem(status, title: "Malformed HTTP request", detail: detail)
    }
}
