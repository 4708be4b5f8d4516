import Inputs

extension Problem {
    /// The answer to a body that could not be read at all.
    init(_ error: IngestReadError) {
        switch error {
        case .tooLarge(let limit): self = .tooLarge(limit: limit)
        case .malformedJSON(let e): self = .malformedJSON(e)
        case .notAnArray: self = Problem(.badRequest, title: "Malformed JSON", detail: "expected an array")
        }
    }
}
