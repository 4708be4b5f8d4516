import Hummingbird
import Ingest
import JSON

/// Bodies a route cannot read as they were labelled: 415, with the Content-Type received and those the route takes,
/// so a client (typically `curl -d`, which labels everything `application/x-www-form-urlencoded`) can fix the call.
extension Problem {
    /// What `POST /v1/fixes` reads, for its 415s.
    static let fixTypes = "application/x-ndjson or application/json (NDJSON or a JSON array), text/csv, "
        + "text/tab-separated-values, application/gpx+xml or application/x-nmea; or name the format with ?format="
        + TraceFormat.allCases.map(\.rawValue).joined(separator: "|")

    /// A Content-Type that names no format the route reads, for a body that does not start as JSON either (the one
    /// thing the route would read without a Content-Type).
    static func unsupportedContentType(_ type: String, accepts: String) -> Problem {
        Problem(.unsupportedMediaType, title: "Unsupported Content-Type",
                detail: "Content-Type '\(type)' is not one this route reads, and the body does not start as JSON; "
                    + "send \(accepts). (curl -d sends application/x-www-form-urlencoded and drops newlines: use "
                    + "--data-binary @FILE with -H 'Content-Type: …')",
                extensions: [("contentType", type)])
    }

    /// A body with NUL bytes or bytes that are not UTF-8 where a text format is expected; its bytes are not echoed.
    static func binaryBody(_ evidence: (offset: Int, what: String)) -> Problem {
        Problem(.unsupportedMediaType, title: "Binary body",
                detail: "the body is not text (\(evidence.what) at byte \(evidence.offset)); this route reads text formats "
                    + "in UTF-8",
                extensions: [("offset", String(evidence.offset))])
    }

    /// The Content-Type of a request, lowercased without parameters; nil when absent or empty.
    static func contentType(of request: Request) -> String? {
        guard let raw = request.headers[.contentType] else { return nil }
        let type = raw.split(separator: ";").first.map { String($0.lowercased().filter { $0 != " " && $0 != "\t" }) } ?? ""
        return type.isEmpty ? nil : type
    }

    /// Whether a Content-Type says JSON in some form (`application/json`, `…+json`, NDJSON's names).
    static func saysJSON(_ type: String) -> Bool {
        type == "application/json" || type.hasSuffix("+json") || type.hasSuffix("/x-ndjson") || type.hasSuffix("/ndjson")
            || type.hasSuffix("/jsonl") || type == "text/json"
    }

    /// For a JSON route: checks a body's first bytes against its Content-Type. A body labelled as something else
    /// (form data, plain text, CSV) is still read when it starts as JSON (`curl -d '{…}'` works), refused with 415
    /// when it does not; a binary body is refused whatever its label.
    static func checkJSONBody(_ bytes: UnsafeRawBufferPointer, contentType: String?, accepts: String) throws(Problem) {
        if let evidence = TraceFormat.binaryEvidence(bytes), evidence.what == "a NUL byte" { throw binaryBody(evidence) }
        guard let type = contentType, !saysJSON(type) else { return }
        guard let first = bytes.first(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) }) else { return }
        if first != UInt8(ascii: "{") && first != UInt8(ascii: "[") { throw unsupportedContentType(type, accepts: accepts) }
    }
}
