import TriggerEngine

/// Location fixes as CSV (RFC 4180 quoting, quoted fields may hold newlines). The first record is the header; columns
/// are found by `CSVColumns`. Timestamps are RFC 3339, `YYYY-MM-DD HH:MM:SS` (UTC), or Unix seconds/milliseconds;
/// empty optional cells are absent. The delimiter is `,`, or `;` / tab when the header has no comma.
public struct CSVFixDecoder: TraceDecoding, Sendable {
    public let source: String
    public let defaultDevice: String?
    public let columns: CSVColumns
    private var records = LineSplitter(quoteAware: true)
    private var layout: CSVLayout?
    private var rules = FixRules(names: .spec, numbersFromText: true)
    private var delimiter: UInt8 = 44
    private var cells: [CSVCell] = []

    public init(source: String, defaultDevice: String? = nil, columns: CSVColumns = .automatic) {
        self.source = source
        self.defaultDevice = defaultDevice
        self.columns = columns
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onFix: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = LineSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.feed(chunk) { decodeRecord($0, onFix: onFix, onError: onError) }
    }

    public mutating func finish(onFix: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var splitter = LineSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.finish { decodeRecord($0, onFix: onFix, onError: onError) }
    }

    private mutating func decodeRecord(
        _ record: LineSplitter.Line, onFix: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        func fail(_ field: String?, _ reason: String, _ kind: String) {
            onError(IngestError(source: source, line: record.number, offset: record.offset, field: field, reason: reason,
                                kind: kind))
        }
        if record.tooLong {
            fail(nil, "record longer than \(records.maximumLength) bytes, skipped", IngestError.Kind.recordTooLong)
            return
        }
        if isBlank(record.bytes) { return }
        if layout == nil { delimiter = Self.delimiter(ofHeader: record.bytes) }
        if let problem = CSVCell.split(record.bytes, delimiter: delimiter, into: &cells) {
            fail(nil, problem.reason + " at byte \(problem.offset) of the record", IngestError.Kind.malformedCSV)
            return
        }
        guard let layout else {
            let header = cells.map { String(decoding: trimmed($0.raw(record.bytes)), as: UTF8.self) }
            let l = CSVLayout(header: header, columns: columns)
            layout = l
            rules.names = l.names
            if !l.missing.isEmpty {
                fail(nil, "the header has no column for " + l.missing.joined(separator: ", "),
                     IngestError.Kind.missingColumn)
            }
            return
        }
        guard layout.missing.isEmpty else {
            fail(nil, "the header has no column for " + layout.missing.joined(separator: ", "),
                 IngestError.Kind.missingColumn)
            return
        }
        let bytes = record.bytes
        let cells = self.cells  // a local copy, so the helper below captures no part of `self`
        func value(_ k: Int?) -> RawValue {
            guard let k, k < cells.count else { return .absent }
            return cells[k].value(bytes)
        }
        var fields = FixFields()
        fields.device = value(layout.device)
        if case .bytes(let b) = fields.device, trimmed(b).isEmpty { fields.device = .absent }
        fields.timestamp = value(layout.timestamp)
        if case .bytes(let b) = fields.timestamp, trimmed(b).isEmpty { fields.timestamp = .absent }
        fields.latitude = value(layout.latitude)
        fields.longitude = value(layout.longitude)
        fields.accuracy = value(layout.accuracy)
        fields.altitude = value(layout.altitude)
        fields.speed = value(layout.speed)
        fields.course = value(layout.course)
        do throws(FieldProblem) {
            onFix(try fields.makeFix(rules, defaultDevice: defaultDevice))
        } catch {
            onError(error.ingestError(source: source, line: record.number, offset: record.offset))
        }
    }

    static func delimiter(ofHeader b: UnsafeRawBufferPointer) -> UInt8 {
        var semicolon = false, tab = false
        for c in b {
            if c == 44 { return 44 }
            if c == 59 { semicolon = true } else if c == 9 { tab = true }
        }
        return semicolon ? 59 : tab ? 9 : 44
    }
}
