import TriggerEngine

/// Location fixes as CSV (RFC 4180 quoting, quoted fields may hold newlines). The first record is the header; columns
/// are found by `CSVColumns`. Timestamps are RFC 3339, `YYYY-MM-DD HH:MM:SS` (UTC), or Unix seconds/milliseconds;
/// empty optional cells are absent. The delimiter is `,`, or `;` / tab when the header has no comma; in a `;` file
/// numbers may have a decimal comma (`48,8566`), as spreadsheets write them where the comma is the decimal separator.
///
/// A header without a required column is one `missing-column` error on line 1, and the rows after it are counted in
/// one warning at `finish`, not reported one by one. A device column that names a different device on nearly every
/// row (a row number taken for a device) is a warning.
public struct CSVFixDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    public let defaultDevice: String?
    public let columns: CSVColumns
    private var records = LineSplitter(quoteAware: true)
    private var layout: CSVLayout?
    private var rules = FixRules(names: .spec, numbersFromText: true)
    private var delimiter: UInt8 = 44
    /// The last record's timestamp date (`RFC3339Day`).
    private var day = RFC3339Day()
    private var cells: [CSVCell] = []
    private var rowsNotRead = 0
    /// Distinct devices among the first `Self.deviceSampleSize` fixes, while they are being counted.
    private var deviceSample: Set<String> = []
    private var sampled = 0
    public private(set) var warnings: [IngestWarning] = []

    /// Fixes looked at to decide whether the device column looks like a row number.
    static let deviceSampleSize = 1000
    /// Fewer fixes say nothing: a handful of devices with one fix each is plausible.
    static let deviceSampleMinimum = 20

    /// The header as resolved, once the first record has been read.
    public var headerLayout: CSVLayout? { layout }

    public init(source: String, defaultDevice: String? = nil, columns: CSVColumns = .automatic) {
        self.source = source
        self.defaultDevice = defaultDevice
        self.columns = columns
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = LineSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.feed(chunk) { decodeRecord($0, onRecord: onRecord, onError: onError) }
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var splitter = LineSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.finish { decodeRecord($0, onRecord: onRecord, onError: onError) }
        if sampled < Self.deviceSampleSize { judgeDeviceColumn() }
        if rowsNotRead > 0 {
            warnings.append(IngestWarning(source: source, kind: IngestWarning.Kind.rowsNotRead,
                                          message: "\(rowsNotRead) \(rowsNotRead == 1 ? "row" : "rows") not read: the header has no column for "
                                              + (layout?.missing ?? []).joined(separator: ", ")))
        }
    }

    /// Warns when nearly every sampled fix has a device of its own: the column is likely a row number.
    private mutating func judgeDeviceColumn() {
        defer { deviceSample = [] }
        guard sampled >= Self.deviceSampleMinimum, deviceSample.count * 10 >= sampled * 9,
              let column = layout?.column(for: .device) else { return }
        let when = sampled == Self.deviceSampleSize ? "in the first \(sampled) rows" : "in \(sampled) rows"
        warnings.append(IngestWarning(
            source: source, line: 1, kind: IngestWarning.Kind.devicePerRow,
            message: "column \"\(column)\" gives nearly every row its own device (\(deviceSample.count) devices \(when)); "
                + "it looks like a row number, not a device"))
    }

    private mutating func decodeRecord(
        _ record: LineSplitter.Line, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        func fail(_ field: String?, _ reason: String, _ kind: String) {
            onError(IngestError(source: source, line: record.number, offset: record.offset, field: field, reason: reason,
                                kind: kind))
        }
        if let layout, !layout.missing.isEmpty {
            // Reported once, on the header; the rows are only counted, for the warning at the end.
            if record.tooLong || !isBlank(record.bytes) { rowsNotRead += 1 }
            return
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
            rules.decimalComma = delimiter == 59
            if let problem = l.problem { fail(nil, problem, IngestError.Kind.missingColumn) }
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
            let fix = try fields.makeFix(rules, defaultDevice: defaultDevice, day: &day)
            if sampled < Self.deviceSampleSize, layout.device != nil {
                deviceSample.insert(fix.device)
                sampled += 1
                if sampled == Self.deviceSampleSize { judgeDeviceColumn() }
            }
            onRecord(fix)
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
