import JSON
import TriggerEngine

/// OwnTracks messages (https://owntracks.org/booklet/tech/json/), as NDJSON, single or concatenated JSON documents, or
/// arrays of messages (the HTTP bulk form). `_type: location` becomes a fix: `lat`, `lon`, `tst` (Unix s), `acc`,
/// `alt`, `vel` (km/h, converted to m/s), `cog`. The device is the MQTT `topic`'s user/device when the message carries
/// one (it is unique, a `tid` is two letters), else `tid`, else `defaultDevice`.
/// Other valid types (transition, waypoint, lwt, cmd, card, …) are not fixes: they are counted as ignored, not errors.
/// Messages that break the schema's rules are errors with the reason.
public struct OwnTracksDecoder: StreamingRecordDecoder, Sendable {
    public let source: String
    public let defaultDevice: String?
    /// The device of every message, over `topic` and `tid`: the HTTP endpoint's `X-Limit-U`/`X-Limit-D` (the app's
    /// user and device name, as the OwnTracks Recorder reads them).
    public var device: String?
    /// Valid messages that are not locations.
    public private(set) var ignoredCount = 0
    /// `ignoredCount` by `_type`.
    public private(set) var ignoredTypes: [String: Int] = [:]
    private var records = JSONRecordSplitter()

    static let rules = FixRules(
        names: FixFieldNames(device: "tid", timestamp: "tst", latitude: "lat", longitude: "lon", accuracy: "acc",
                             altitude: "alt", speed: "vel", course: "cog"),
        timestamps: .unixSecondsInteger, speedScale: 1 / 3.6, nonPositiveAccuracyIsUnknown: true)

    public init(source: String, defaultDevice: String? = nil) {
        self.source = source
        self.defaultDevice = defaultDevice
    }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        decode(chunk, onRecord: onRecord, onIgnored: { _ in }, onError: onError)
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onRecord: onRecord, onIgnored: { _ in }, onError: onError)
    }

    /// Like `decode(_:onRecord:onError:)`, also reporting each valid non-location message.
    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onIgnored: (OwnTracksIgnoredMessage) -> Void,
        onError: (IngestError) -> Void
    ) {
        var splitter = JSONRecordSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.feed(chunk) { decodeRecord($0, onRecord: onRecord, onIgnored: onIgnored, onError: onError) }
    }

    public mutating func finish(
        onRecord: (LocationFix) -> Void, onIgnored: (OwnTracksIgnoredMessage) -> Void, onError: (IngestError) -> Void
    ) {
        var splitter = JSONRecordSplitter()
        swap(&splitter, &records)
        defer { swap(&splitter, &records) }
        splitter.finish { decodeRecord($0, onRecord: onRecord, onIgnored: onIgnored, onError: onError) }
    }

    private mutating func decodeRecord(
        _ record: JSONRecordSplitter.Record, onRecord: (LocationFix) -> Void,
        onIgnored: (OwnTracksIgnoredMessage) -> Void, onError: (IngestError) -> Void
    ) {
        func report(_ p: FieldProblem) { onError(p.ingestError(source: source, line: record.line, offset: record.offset)) }
        guard let messages = jsonMessages(of: record, maximumLength: records.maximumLength, report: report) else { return }
        for message in messages {
            do throws(FieldProblem) {
                switch try Self.classify(message) {
                case .location(let members):
                    var fix = try Self.fix(members, defaultDevice: device ?? defaultDevice)
                    if let device { fix.device = device }
                    onRecord(fix)
                case .ignored(let type):
                    ignoredCount += 1
                    ignoredTypes[type, default: 0] += 1
                    onIgnored(OwnTracksIgnoredMessage(type: type, line: record.line))
                }
            } catch {
                report(error)
            }
        }
    }

    static func fix(_ members: [(key: String, value: JSONValue)], defaultDevice: String?) throws(FieldProblem)
        -> LocationFix
    {
        var fields = FixFields()
        var topic: String?
        for (key, v) in members {
            switch key {
            case "lat": fields.latitude = RawValue(v)
            case "lon": fields.longitude = RawValue(v)
            case "tst": fields.timestamp = RawValue(v)
            case "acc": fields.accuracy = RawValue(v)
            case "alt": fields.altitude = RawValue(v)
            case "vel": fields.speed = RawValue(v)
            case "cog": fields.course = RawValue(v)
            case "tid": fields.device = RawValue(v)
            case "topic": topic = v.stringValue
            default: break
            }
        }
        if let topic, let device = deviceOfTopic(topic) { fields.device = .string(device) }
        return try fields.makeFix(rules, defaultDevice: defaultDevice)
    }

    /// `owntracks/jane/phone` → `jane/phone`; other topics give their last two levels.
    public static func deviceOfTopic(_ topic: String) -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: true)
        guard levels.count >= 2 else { return levels.first.map(String.init) }
        return levels[levels.count - 2] + "/" + levels[levels.count - 1]
    }
}
