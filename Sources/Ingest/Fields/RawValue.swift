import JSON
import TriggerEngine

/// A field's value as a decoder found it, before interpretation. `bytes` borrows the input and is valid only while
/// the record is being decoded; nothing here allocates except turning a long device id into a `String`.
enum RawValue {
    case absent
    case null
    case number(Double)
    /// String content without escapes (JSON), or a CSV cell.
    case bytes(UnsafeRawBufferPointer)
    /// A string the JSON parser unescaped.
    case string(String)
    case bool(Bool)
    /// Any other JSON value, by its kind name ("an object"); static text keeps the case free of reference counting.
    case other(StaticString)

    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .number(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .bool(let b): self = .bool(b)
        case .array: self = .other("an array")
        case .object: self = .other("an object")
        }
    }

    var isMissing: Bool {
        switch self {
        case .absent, .null: true
        default: false
        }
    }

    /// For messages: what the value is, when it is the wrong kind.
    var kindName: String {
        switch self {
        case .absent: "nothing"
        case .null: "null"
        case .number: "a number"
        case .bytes, .string: "a string"
        case .bool: "a boolean"
        case .other(let k): k.description
        }
    }

    /// Runs `body` over the value's text, when it is text.
    func withText<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        switch self {
        case .bytes(let b): return body(trimmed(b))
        case .string(let s):
            var copy = s
            return copy.withUTF8 { body(trimmed(UnsafeRawBufferPointer($0))) }
        default: return nil
        }
    }
}

extension RawValue {
    init(_ json: JSONValue?) {
        guard let json else { self = .absent; return }
        self.init(json)
    }
}
