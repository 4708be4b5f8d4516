import JSON
import TriggerEngine

/// Location fixes as NDJSON: one object per line with SPEC §2's field names (`device`, `timestamp` as RFC 3339 or Unix
/// seconds/milliseconds, `latitude`, `longitude`, `horizontalAccuracy`, `altitude`, `speed` m/s, `course`) or any of
/// their `FieldAliases` (`lat`, `lon`, `time`…); two names for one field in a record (`lat` and `latitude`) are an
/// `ambiguous-field` error naming both. Blank lines are skipped, unknown keys ignored. Errors name the key the record
/// used. The replay hot path: flat lines are read by an allocation-free byte
/// scanner; only lines with escapes or nested values go through `JSONParser`.
public struct NDJSONFixDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    /// The device of lines without `device` (usually from the file name); without it such lines are errors.
    public let defaultDevice: String?
    private var lines = LineSplitter()
    /// The last line's shape, so the next line with the same keys is read without scanning them (`FixLayout`).
    private var layout = FixLayout()
    /// The last line's timestamp date (`RFC3339Day`).
    private var day = RFC3339Day()

    static let rules = FixRules(names: .spec)

    public init(source: String, defaultDevice: String? = nil) {
        self.source = source
        self.defaultDevice = defaultDevice
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        decode(chunk, onNumberedFix: { fix, _ in onRecord(fix) }, onError: onError)
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onNumberedFix: { fix, _ in onRecord(fix) }, onError: onError)
    }

    /// `decode(_:onRecord:onError:)` with the 1-based line each fix was read from (the server's ingest reader feeds
    /// whole chunks through it instead of splitting lines itself and calling in once per line: the per-call setup
    /// was a quarter of `serve`'s decoding time).
    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onNumberedFix onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = LineSplitter()
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        var layout = FixLayout()
        swap(&layout, &self.layout)
        defer { swap(&layout, &self.layout) }
        var day = day
        defer { self.day = day }
        // Static, with its inputs as locals: calling an instance method here copied the decoder for every line.
        let source = source, defaultDevice = defaultDevice, limit = splitter.maximumLength
        splitter.feed(chunk) {
            Self.decodeLine($0, source: source, defaultDevice: defaultDevice, limit: limit, layout: &layout, day: &day, onRecord: onRecord, onError: onError)
        }
    }

    /// `finish(onRecord:onError:)` with the line each fix was read from.
    public mutating func finish(onNumberedFix onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void) {
        var splitter = LineSplitter()
        swap(&splitter, &lines)
        defer { swap(&splitter, &lines) }
        var layout = FixLayout()
        swap(&layout, &self.layout)
        defer { swap(&layout, &self.layout) }
        var day = day
        defer { self.day = day }
        let source = source, defaultDevice = defaultDevice, limit = splitter.maximumLength
        splitter.finish {
            Self.decodeLine($0, source: source, defaultDevice: defaultDevice, limit: limit, layout: &layout, day: &day, onRecord: onRecord, onError: onError)
        }
    }

    private static func decodeLine(_ line: LineSplitter.Line, source: String, defaultDevice: String?, limit: Int,
                                   layout: inout FixLayout, day: inout RFC3339Day, onRecord: (LocationFix, Int) -> Void,
                                   onError: (IngestError) -> Void) {
        func problemError(_ p: FieldProblem, _ line: LineSplitter.Line) -> IngestError {
            p.ingestError(source: source, line: line.number, offset: line.offset)
        }
        if line.tooLong {
            onError(IngestError(source: source, line: line.number, offset: line.offset,
                                reason: "line longer than \(limit) bytes, skipped",
                                kind: IngestError.Kind.recordTooLong))
            return
        }
        let rules = Self.rules
        var fields = FixFields()
        if !FlatJSONScanner.scanFix(line.bytes, into: &fields, layout: &layout) {
            if isBlank(line.bytes) { return }
            fields = FixFields()
            do throws(FieldProblem) {
                try Self.slowFields(line.bytes, into: &fields)
            } catch {
                onError(problemError(error, line))
                return
            }
        }
        do throws(FieldProblem) {
            onRecord(try fields.makeFix(rules, defaultDevice: defaultDevice, day: &day), line.number)
        } catch {
            // Rare: found again with the names this line used, so the error names `lat` where the line said `lat`.
            let names = keyNames(line.bytes)
            guard names != nil else { onError(problemError(error, line)); return }
            do throws(FieldProblem) {
                _ = try fields.makeFix(FixRules(names: names!), defaultDevice: defaultDevice, day: &day)
                onError(problemError(error, line))
            } catch {
                onError(problemError(error, line))
            }
        }
    }

    /// The names a line gave its fields, when any is not SPEC §2's; nil otherwise.
    static func keyNames(_ bytes: UnsafeRawBufferPointer) -> FixFieldNames? {
        guard case .object(let members)? = try? JSONParser.parse(bytes) else { return nil }
        var names = FixFieldNames.spec, changed = false
        for (key, _) in members {
            guard let field = FieldAliases.field(ofKey: key), names[field] != key else { continue }
            names[field] = key
            changed = true
        }
        return changed ? names : nil
    }

    /// The general path: a full JSON parse, so escapes and nested values work and malformed lines get a precise reason.
    static func slowFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FixFields) throws(FieldProblem) {
        let value = try parseRecord(bytes)
        guard case .object(let members) = value else {
            throw FieldProblem(field: nil, reason: "expected a JSON object, found \(value.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        var given: [FixField: String] = [:]
        for (key, v) in members {
            guard let field = FieldAliases.field(ofKey: key) else { continue }
            if let other = given[field] { throw FieldProblem.ambiguous(field, other, key) }
            given[field] = key
            fields[field] = RawValue(v)
        }
    }
}

/// Parses one record, turning a parser error into a `malformed-json` problem that names the byte within the record.
func parseRecord(_ bytes: UnsafeRawBufferPointer) throws(FieldProblem) -> JSONValue {
    do {
        return try JSONParser.parse(bytes)
    } catch {
        if let path = error.duplicateKeyPath {
            throw FieldProblem(field: path, reason: "\(error.reason) at byte \(error.offset) of the line: a key may occur once",
                               kind: IngestError.Kind.duplicateKey)
        }
        throw FieldProblem(field: nil, reason: "malformed JSON at byte \(error.offset) of the line: \(error.reason)",
                           kind: error.isInvalidUTF8 ? IngestError.Kind.invalidUTF8 : IngestError.Kind.malformedJSON)
    }
}

/// The JSON values of one record of a JSON-document stream (a top-level array counts as its items). An oversized or
/// malformed record is reported and yields nil.
func jsonMessages(of record: JSONRecordSplitter.Record, maximumLength: Int, report: (FieldProblem) -> Void) -> [JSONValue]? {
    if record.tooLong {
        report(FieldProblem(field: nil, reason: "document longer than \(maximumLength) bytes, skipped",
                            kind: IngestError.Kind.recordTooLong))
        return nil
    }
    let value: JSONValue
    do throws(FieldProblem) { value = try parseRecord(record.bytes) } catch { report(error); return nil }
    if case .array(let items) = value { return items }
    return [value]
}
