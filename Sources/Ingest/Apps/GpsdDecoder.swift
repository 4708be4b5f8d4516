import JSON
import TriggerEngine

/// gpsd's JSON protocol (https://gpsd.io/gpsd_json.html) as a WATCH connection streams it or `gpspipe -w` writes it:
/// every TPV report with a 2D or 3D fix, a time and a position is a fix — `lat`, `lon`, `time`, altitude (`altHAE`,
/// else `alt`, else `altMSL`), `speed` (m/s), `track`, and accuracy `eph`, else the larger of `epx`/`epy` (metres,
/// gpsd's 95 % estimates). The device is `device` when set (a `?device=` setting), else the report's `device` (the
/// receiver's path, `/dev/ttyUSB0`), else `defaultDevice`. TPVs without a fix (`mode` < 2), a time or a position —
/// gpsd sends them while a receiver starts — and the other classes (VERSION, DEVICES, WATCH, SKY, …) are skipped
/// and counted by reason, not errors; a TPV whose values are unusable (latitude 95) is an error with the reason.
public struct GpsdDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    public let defaultDevice: String?
    /// Names the device of every report, over the report's own `device`.
    public var device: String?
    /// Reports that are not fixes, by reason: `no-fix`, `no-time`, `no-position`, or the class name.
    public private(set) var skipped: [String: Int] = [:]
    private var records = JSONRecordSplitter()

    static let rules = FixRules(
        names: FixFieldNames(device: "device", timestamp: "time", latitude: "lat", longitude: "lon", accuracy: "eph",
                             altitude: "altHAE", speed: "speed", course: "track"),
        timestamps: .flexible)

    public init(source: String, defaultDevice: String? = nil, device: String? = nil) {
        self.source = source
        self.defaultDevice = defaultDevice
        self.device = device
    }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
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

    private mutating func decodeRecord(_ record: JSONRecordSplitter.Record, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        func report(_ p: FieldProblem) { onError(p.ingestError(source: source, line: record.line, offset: record.offset)) }
        guard let messages = jsonMessages(of: record, maximumLength: records.maximumLength, report: report) else { return }
        for message in messages {
            guard let members = message.objectValue else {
                report(FieldProblem(field: nil, reason: "expected a gpsd report object, found \(message.kindName)", kind: IngestError.Kind.wrongType))
                continue
            }
            let reportClass = message["class"]?.stringValue ?? "unclassified"
            guard reportClass == "TPV" else {
                skipped[reportClass, default: 0] += 1
                continue
            }
            if let mode = message["mode"]?.doubleValue, mode < 2 {
                skipped["no-fix", default: 0] += 1
                continue
            }
            if message["time"] == nil {
                skipped["no-time", default: 0] += 1
                continue
            }
            if message["lat"] == nil || message["lon"] == nil {
                skipped["no-position", default: 0] += 1
                continue
            }
            do throws(FieldProblem) {
                onRecord(try Self.fix(members, device: device, defaultDevice: defaultDevice))
            } catch {
                report(error)
            }
        }
    }

    static func fix(_ members: [(key: String, value: JSONValue)], device: String?, defaultDevice: String?) throws(FieldProblem) -> LocationFix {
        var fields = FixFields()
        var alt: RawValue = .absent, altMSL: RawValue = .absent
        var epx: Double?, epy: Double?
        for (key, v) in members {
            switch key {
            case "lat": fields.latitude = RawValue(v)
            case "lon": fields.longitude = RawValue(v)
            case "time": fields.timestamp = RawValue(v)
            case "eph": fields.accuracy = RawValue(v)
            case "epx": epx = v.doubleValue
            case "epy": epy = v.doubleValue
            case "altHAE": fields.altitude = RawValue(v)
            case "alt": alt = RawValue(v)
            case "altMSL": altMSL = RawValue(v)
            case "speed": fields.speed = RawValue(v)
            case "track": fields.course = RawValue(v)
            case "device": fields.device = RawValue(v)
            default: break
            }
        }
        if case .absent = fields.accuracy, let e = [epx, epy].compactMap({ $0 }).max() { fields.accuracy = .number(e) }
        if case .absent = fields.altitude { fields.altitude = alt }
        if case .absent = fields.altitude { fields.altitude = altMSL }
        if let device { fields.device = .string(device) }
        return try fields.makeFix(rules, defaultDevice: defaultDevice)
    }
}
