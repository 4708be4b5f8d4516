import JSON

/// Why a body or stream could not be read at all (what `IngestReader.read` throws besides what its `submit` throws).
/// The HTTP routes answer each as a problem (`Problem+Inputs`); a stream input logs it and stops.
public enum IngestReadError: Error, Sendable, CustomStringConvertible {
    /// More bytes than the limit.
    case tooLarge(limit: Int)
    /// A body starting with `[` that is not JSON.
    case malformedJSON(JSONParser.Error)
    /// A body starting with `[` that is JSON but not an array.
    case notAnArray

    public var description: String {
        switch self {
        case .tooLarge(let limit): "the input exceeds the limit of \(limit) bytes"
        case .malformedJSON(let e): "malformed JSON: \(e)"
        case .notAnArray: "malformed JSON: expected an array"
        }
    }
}
