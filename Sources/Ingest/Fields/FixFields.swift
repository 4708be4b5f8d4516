import JSON
import TriggerEngine

private enum TextNumber { case empty, value(Double), invalid }

/// The fix fields of one record as found, turned into a validated `LocationFix` by `makeFix`.
struct FixFields: PerFixField {
    var device = RawValue.absent
    var timestamp = RawValue.absent
    var latitude = RawValue.absent
    var longitude = RawValue.absent
    var accuracy = RawValue.absent
    var altitude = RawValue.absent
    var speed = RawValue.absent
    var course = RawValue.absent

    func makeFix(_ rules: FixRules, defaultDevice: String?) throws(FieldProblem) -> LocationFix {
        var day = RFC3339Day()
        return try makeFix(rules, defaultDevice: defaultDevice, day: &day)
    }

    /// `day`: the decoder's last RFC 3339 date, so a run of timestamps on one date skips reading it again.
    func makeFix(_ rules: FixRules, defaultDevice: String?, day: inout RFC3339Day) throws(FieldProblem) -> LocationFix {
        let latitude = try Self.number(self.latitude, .latitude, rules)
        let longitude = try Self.number(self.longitude, .longitude, rules)
        guard let latitude else { throw FieldProblem.missing(rules.names.latitude) }
        guard let longitude else { throw FieldProblem.missing(rules.names.longitude) }
        let timestamp = try Self.timestamp(self.timestamp, .timestamp, rules, day: &day)
        var accuracy = try Self.number(self.accuracy, .accuracy, rules)
        if rules.nonPositiveAccuracyIsUnknown, let a = accuracy, a <= 0 { accuracy = nil }
        let altitude = try Self.finite(Self.number(self.altitude, .altitude, rules), .altitude, rules)
        let speed = try Self.finite(Self.number(self.speed, .speed, rules), .speed, rules).map { $0 * rules.speedScale }
        let course = try Self.finite(Self.number(self.course, .course, rules), .course, rules)
        let device = try Self.device(self.device, .device, rules, defaultDevice)
        let fix = LocationFix(device: device, timestamp: timestamp, latitude: latitude, longitude: longitude,
                              horizontalAccuracy: accuracy, altitude: altitude, speed: speed, course: course)
        if let rejection = fix.invalidity { throw FieldProblem(fix, rejection, rules.names) }
        return fix
    }

    static func number(_ v: RawValue, _ key: FixField, _ rules: FixRules) throws(FieldProblem) -> Double? {
        func field() -> String { rules.names[key] }
        switch v {
        case .absent, .null: return nil
        case .number(let d): return d
        case .bytes, .string:
            guard rules.numbersFromText else { throw FieldProblem.wrongType(field(), expected: "a number", found: v) }
            let comma = rules.decimalComma
            switch v.withText({ t -> TextNumber in
                t.isEmpty ? .empty : (decimal(t) ?? (comma ? commaDecimal(t) : nil)).map { .value($0) } ?? .invalid
            }) {
            case .value(let d): return d
            case .invalid: throw FieldProblem(field: field(), reason: "\(quoted(v)) is not a number", kind: IngestError.Kind.invalidNumber)
            case .empty, nil: return nil  // an empty cell is an absent value
            }
        default:
            throw FieldProblem.wrongType(field(), expected: "a number", found: v)
        }
    }

    static func finite(_ d: Double?, _ key: FixField, _ rules: FixRules) throws(FieldProblem) -> Double? {
        if let d, !d.isFinite {
            let field = rules.names[key]
            throw FieldProblem(field: field, reason: "\(field) is not a finite number", kind: IngestError.Kind.notANumber)
        }
        return d
    }

    static func timestamp(_ v: RawValue, _ key: FixField, _ rules: FixRules) throws(FieldProblem) -> Timestamp {
        var day = RFC3339Day()
        return try timestamp(v, key, rules, day: &day)
    }

    static func timestamp(_ v: RawValue, _ key: FixField, _ rules: FixRules, day: inout RFC3339Day) throws(FieldProblem) -> Timestamp {
        func field() -> String { rules.names[key] }
        switch v {
        case .absent, .null:
            throw FieldProblem.missing(field())
        case .number(let d):
            if case .unixSecondsInteger = rules.timestamps {
                // Bounded well inside Int64 microseconds (about ±31,700 years).
                guard d.isFinite, d == d.rounded(.towardZero), abs(d) <= 1e12 else {
                    throw FieldProblem(field: field(), reason: "\(d) is not an integer number of Unix seconds",
                                       kind: IngestError.Kind.invalidTimestamp)
                }
                return Timestamp(microseconds: Int64(d) * 1_000_000)
            }
            guard let t = unixTime(d) else {
                throw FieldProblem(field: field(), reason: "\(d) is not a Unix time in seconds or milliseconds",
                                   kind: IngestError.Kind.invalidTimestamp)
            }
            return t
        case .bytes, .string:
            if case .unixSecondsInteger = rules.timestamps {
                throw FieldProblem.wrongType(field(), expected: "an integer", found: v)
            }
            let t: Timestamp?
            if case .bytes(let b) = v { t = textTime(trimmed(b), day: &day) } else { t = v.withText(textTime) ?? nil }
            guard let t else {
                throw FieldProblem(field: field(), reason: "\(quoted(v)) is neither RFC 3339 nor a Unix time",
                                   kind: IngestError.Kind.invalidTimestamp)
            }
            return t
        default:
            throw FieldProblem.wrongType(field(), expected: "a time", found: v)
        }
    }

    static func textTime(_ text: UnsafeRawBufferPointer) -> Timestamp? {
        var day = RFC3339Day()
        return textTime(text, day: &day)
    }

    static func textTime(_ text: UnsafeRawBufferPointer, day: inout RFC3339Day) -> Timestamp? {
        if let t = Timestamp.parseRFC3339(text, day: &day) { return t }
        if let d = decimal(text) { return unixTime(d) }
        return nil
    }

    /// Unix seconds, or milliseconds when above 1e11 (year 5138 in seconds, 1973 in milliseconds); bounded so the
    /// microsecond count cannot overflow.
    static func unixTime(_ d: Double) -> Timestamp? {
        guard d.isFinite, abs(d) <= 1e15 else { return nil }
        let micro = abs(d) > 1e11 ? (d * 1000).rounded() : (d * 1_000_000).rounded()
        return Timestamp(microseconds: Int64(micro))
    }

    /// Longest device id accepted, in UTF-8 bytes: ids are keys of state rows, metrics and logs, not payloads.
    static let maximumDeviceBytes = 256

    static func device(_ v: RawValue, _ key: FixField, _ rules: FixRules, _ defaultDevice: String?) throws(FieldProblem)
        -> String
    {
        let device = try anyDevice(v, key, rules, defaultDevice)
        guard device.utf8.count <= maximumDeviceBytes else {
            throw FieldProblem(field: rules.names[key],
                               reason: "the device id is \(device.utf8.count) bytes long; at most \(maximumDeviceBytes) are accepted",
                               kind: IngestError.Kind.deviceTooLong)
        }
        return device
    }

    private static func anyDevice(_ v: RawValue, _ key: FixField, _ rules: FixRules, _ defaultDevice: String?) throws(FieldProblem)
        -> String
    {
        func field() -> String { rules.names[key] }
        switch v {
        case .absent, .null:
            guard let defaultDevice else {
                throw FieldProblem(field: field(), reason: "no \(field()) and no default device for this input",
                                   kind: IngestError.Kind.missingDevice)
            }
            return defaultDevice
        case .bytes(let b): return String(decoding: trimmed(b), as: UTF8.self)
        // Trimmed like `.bytes`: the NDJSON fast path hands over bytes, its full-parser fallback a string, and the
        // same line must name the same device either way.
        case .string: return v.withText { String(decoding: $0, as: UTF8.self) } ?? ""
        case .number(let d):
            // Numeric ids (Traccar deviceId, a CSV vehicle number read as JSON) are kept as their integer text.
            guard d.isFinite, d == d.rounded(), abs(d) < 1e15 else {
                throw FieldProblem.wrongType(field(), expected: "a string or an integer", found: v)
            }
            return String(Int64(d))
        default:
            throw FieldProblem.wrongType(field(), expected: "a string", found: v)
        }
    }
}

/// Strict decimal: digits, sign, point and exponent only (so `0x10`, `inf` and `nan` are not numbers).
func decimal(_ text: UnsafeRawBufferPointer) -> Double? {
    guard !text.isEmpty else { return nil }
    for c in text {
        switch c {
        case 48...57, 43, 45, 46, 69, 101: continue
        default: return nil
        }
    }
    return NumberParsing.double(text)
}

/// A decimal with one comma for its point (`48,8566`, `-0,5`); nil for anything else, a point or a second comma
/// included. Copied to the stack, so the hot path stays allocation-free.
func commaDecimal(_ text: UnsafeRawBufferPointer) -> Double? {
    guard text.count <= 64, !text.contains(46) else { return nil }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: text.count) { copy -> Double? in
        var commas = 0
        for (k, c) in text.enumerated() {
            if c == 44 { commas += 1 }
            copy[k] = c == 44 ? 46 : c
        }
        guard commas == 1 else { return nil }
        return decimal(UnsafeRawBufferPointer(copy))
    }
}

func trimmed(_ b: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    var lo = 0, hi = b.count
    while lo < hi, b[lo] == 32 || b[lo] == 9 { lo += 1 }
    while hi > lo, b[hi - 1] == 32 || b[hi - 1] == 9 || b[hi - 1] == 13 { hi -= 1 }
    return lo == 0 && hi == b.count ? b : UnsafeRawBufferPointer(rebasing: b[lo..<hi])
}

/// A short quoted excerpt of a value for an error message (at most 40 bytes).
func quoted(_ v: RawValue) -> String {
    let text = v.withText { b in String(decoding: UnsafeRawBufferPointer(rebasing: b.prefix(40)), as: UTF8.self) }
    return "\"" + (text ?? v.kindName) + "\""
}

func isBlank(_ b: UnsafeRawBufferPointer) -> Bool {
    for c in b where !(c == 32 || c == 9 || c == 13 || c == 10) { return false }
    return true
}
