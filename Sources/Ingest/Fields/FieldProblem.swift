import TriggerEngine

/// Why one record's fields do not make a fix; the decoder adds source and position.
struct FieldProblem: Error {
    var field: String?
    var reason: String
    var kind: String
}

extension FieldProblem {
    static func missing(_ field: String) -> FieldProblem {
        FieldProblem(field: field, reason: "\(field) is missing", kind: IngestError.Kind.missingField)
    }

    /// Two keys of one record name the same field (`lat` and `latitude`): neither is chosen.
    static func ambiguous(_ field: FixField, _ first: String, _ second: String) -> FieldProblem {
        FieldProblem(field: second, reason: "\"\(first)\" and \"\(second)\" both give the \(FixFieldNames.spec[field]); keep one",
                     kind: IngestError.Kind.ambiguousField)
    }

    static func wrongType(_ field: String, expected: String, found: RawValue) -> FieldProblem {
        FieldProblem(field: field, reason: "\(field) must be \(expected), found \(found.kindName)",
                     kind: IngestError.Kind.wrongType)
    }

    /// The engine's own rejection, with the value that caused it.
    init(_ fix: LocationFix, _ rejection: FixRejection, _ names: FixFieldNames) {
        let field: String
        var reason = rejection.description
        switch rejection {
        case .missingDevice: field = names.device
        case .notANumber: field = fix.latitude.isFinite ? names.longitude : names.latitude
        case .latitudeOutOfRange: field = names.latitude; reason += " (\(fix.latitude))"
        case .longitudeOutOfRange: field = names.longitude; reason += " (\(fix.longitude))"
        case .negativeAccuracy: field = names.accuracy; reason += " (\(fix.horizontalAccuracy ?? 0))"
        default: field = names.timestamp
        }
        self.init(field: field, reason: reason, kind: rejection.rawValue)
    }

    func ingestError(source: String, line: Int?, offset: Int?) -> IngestError {
        IngestError(source: source, line: line, offset: offset, field: field, reason: reason, kind: kind)
    }
}
