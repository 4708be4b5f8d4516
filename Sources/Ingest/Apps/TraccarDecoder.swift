import JSON
import TriggerEngine

/// Traccar positions (the server API's `Position` model): a JSON array of positions, NDJSON, or Traccar's forwarding
/// shape `{"position": {...}, "device": {"uniqueId": …, "name": …}}` (events without a position are ignored).
/// Fields: `fixTime` (else `deviceTime`, ISO 8601), `latitude`, `longitude`, `altitude`, `speed` (knots, converted to
/// m/s), `course`, `accuracy` (0 is Traccar's "unknown"), `valid`. The device is the forwarded device's `uniqueId`
/// (else its `name`), else the position's `uniqueId`, else its numeric `deviceId`, else `defaultDevice`.
public struct TraccarDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    public let defaultDevice: String?
    /// Traccar sends `valid: false` when the device had no satellite fix and repeated its last position; such
    /// positions are errors (`invalid-fix`) unless this is set.
    public var acceptsInvalidPositions: Bool
    /// Forwarded events that carry no position.
    public private(set) var ignoredCount = 0
    private var records = JSONRecordSplitter()

    static let knotsToMetresPerSecond = 1852.0 / 3600.0
    static let rules = FixRules(
        names: FixFieldNames(device: "deviceId", timestamp: "fixTime", latitude: "latitude", longitude: "longitude",
                             accuracy: "accuracy", altitude: "altitude", speed: "speed", course: "course"),
        speedScale: knotsToMetresPerSecond, nonPositiveAccuracyIsUnknown: true)

    public init(source: String, defaultDevice: String? = nil, acceptsInvalidPositions: Bool = false) {
        self.source = source
        self.defaultDevice = defaultDevice
        self.acceptsInvalidPositions = acceptsInvalidPositions
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = JSONRecordSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.feed(chunk) { decodeRecord($0, onRecord: onRecord, onError: onError) }
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var splitter = JSONRecordSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.finish { decodeRecord($0, onRecord: onRecord, onError: onError) }
    }

    private mutating func decodeRecord(
        _ record: JSONRecordSplitter.Record, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        func report(_ p: FieldProblem) { onError(p.ingestError(source: source, line: record.line, offset: record.offset)) }
        guard let items = jsonMessages(of: record, maximumLength: records.maximumLength, report: report) else { return }
        for item in items {
            do throws(FieldProblem) {
                if let fix = try position(item) { onRecord(fix) } else { ignoredCount += 1 }
            } catch {
                report(error)
            }
        }
    }

    /// A fix, or nil for a forwarded event without a position.
    func position(_ item: JSONValue) throws(FieldProblem) -> LocationFix? {
        guard case .object = item else {
            throw FieldProblem(field: nil, reason: "a Traccar position must be a JSON object, found \(item.kindName)",
                               kind: IngestError.Kind.wrongType)
        }
        var position = item
        var forwardedDevice: JSONValue?
        if let p = item["position"] {
            guard case .object = p else {
                throw FieldProblem.wrongType("position", expected: "an object", found: RawValue(p))
            }
            position = p
            forwardedDevice = item["device"]
        } else if item["event"] != nil {
            return nil
        }
        var fields = FixFields()
        fields.latitude = RawValue(position["latitude"])
        fields.longitude = RawValue(position["longitude"])
        fields.timestamp = RawValue(position["fixTime"])
        var rules = Self.rules
        if fields.timestamp.isMissing {
            fields.timestamp = RawValue(position["deviceTime"])
            rules.names.timestamp = "deviceTime"
        }
        fields.altitude = RawValue(position["altitude"])
        fields.speed = RawValue(position["speed"])
        fields.course = RawValue(position["course"])
        fields.accuracy = RawValue(position["accuracy"])
        if let d = forwardedDevice?["uniqueId"], !d.isNull {
            fields.device = RawValue(d)
            rules.names.device = "device.uniqueId"
        } else if let d = forwardedDevice?["name"], !d.isNull {
            fields.device = RawValue(d)
            rules.names.device = "device.name"
        } else if let d = position["uniqueId"], !d.isNull {
            fields.device = RawValue(d)
            rules.names.device = "uniqueId"
        } else {
            fields.device = RawValue(position["deviceId"])
        }
        let fix = try fields.makeFix(rules, defaultDevice: defaultDevice)
        if let valid = position["valid"], !valid.isNull {
            guard let isValid = valid.boolValue else {
                throw FieldProblem.wrongType("valid", expected: "a boolean", found: RawValue(valid))
            }
            if !isValid, !acceptsInvalidPositions {
                throw FieldProblem(field: "valid",
                                   reason: "Traccar marked the position invalid (no satellite fix, last known position)",
                                   kind: IngestError.Kind.invalidFix)
            }
        }
        return fix
    }
}
