import TriggerEngine

/// Any trace format behind one concrete type: an enum over the decoders, so the replay loop calls no existential.
public struct TraceDecoder: StreamingRecordDecoder, Sendable {
    private enum Storage {
        case csv(CSVFixDecoder)
        case ndjson(NDJSONFixDecoder)
        case owntracks(OwnTracksDecoder)
        case traccar(TraccarDecoder)
        case gpx(GPXDecoder)
        case nmea(NMEADecoder)
        case gpsd(GpsdDecoder)
        /// Held only while a decoder is taken out to be mutated, so its buffers are never copied.
        case moving
    }

    private var storage: Storage
    public let format: TraceFormat

    /// nil for a format this build cannot decode.
    public init?(format: TraceFormat, source: String, defaultDevice: String? = nil, options: TraceOptions = TraceOptions()) {
        self.format = format
        switch format {
        case .csv: storage = .csv(CSVFixDecoder(source: source, defaultDevice: defaultDevice, columns: options.csvColumns))
        case .ndjson: storage = .ndjson(NDJSONFixDecoder(source: source, defaultDevice: defaultDevice))
        case .owntracks: storage = .owntracks(OwnTracksDecoder(source: source, defaultDevice: defaultDevice))
        case .traccar: storage = .traccar(TraccarDecoder(source: source, defaultDevice: defaultDevice))
        case .gpx:
            storage = .gpx(GPXDecoder(source: source, defaultDevice: defaultDevice, devicePerTrack: options.gpxDevicePerTrack,
                                      waypoints: options.gpxWaypoints))
        case .nmea: storage = .nmea(NMEADecoder(source: source, defaultDevice: defaultDevice))
        case .gpsd: storage = .gpsd(GpsdDecoder(source: source, defaultDevice: defaultDevice))
        }
    }

    public init(_ decoder: CSVFixDecoder) { format = .csv; storage = .csv(decoder) }
    public init(_ decoder: NDJSONFixDecoder) { format = .ndjson; storage = .ndjson(decoder) }
    public init(_ decoder: OwnTracksDecoder) { format = .owntracks; storage = .owntracks(decoder) }
    public init(_ decoder: TraccarDecoder) { format = .traccar; storage = .traccar(decoder) }
    public init(_ decoder: GPXDecoder) { format = .gpx; storage = .gpx(decoder) }
    public init(_ decoder: NMEADecoder) { format = .nmea; storage = .nmea(decoder) }
    public init(_ decoder: GpsdDecoder) { format = .gpsd; storage = .gpsd(decoder) }

    public mutating func decode(
        _ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void
    ) {
        // Setting `.moving` drops the enum's reference, so the bound copy is unique and its buffers are not copied.
        switch storage {
        case .csv(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .csv(d)
        case .ndjson(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .ndjson(d)
        case .owntracks(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .owntracks(d)
        case .traccar(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .traccar(d)
        case .gpx(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .gpx(d)
        case .nmea(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .nmea(d)
        case .gpsd(var d): storage = .moving; d.decode(chunk, onRecord: onRecord, onError: onError); storage = .gpsd(d)
        case .moving: break
        }
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        // Setting `.moving` drops the enum's reference, so the bound copy is unique and its buffers are not copied.
        switch storage {
        case .csv(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .csv(d)
        case .ndjson(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .ndjson(d)
        case .owntracks(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .owntracks(d)
        case .traccar(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .traccar(d)
        case .gpx(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .gpx(d)
        case .nmea(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .nmea(d)
        case .gpsd(var d): storage = .moving; d.finish(onRecord: onRecord, onError: onError); storage = .gpsd(d)
        case .moving: break
        }
    }

    /// Valid records that are not fixes (OwnTracks non-location messages, Traccar events without a position, gpsd
    /// reports that are not fixes).
    public var ignoredCount: Int {
        switch storage {
        case .owntracks(let d): d.ignoredCount
        case .traccar(let d): d.ignoredCount
        case .nmea(let d): d.ignoredSentences
        case .gpsd(let d): d.skipped.values.reduce(0, +)
        default: 0
        }
    }

    /// The decoder's warnings about the input as a whole (CSV columns, GPX waypoints).
    public var warnings: [IngestWarning] {
        switch storage {
        case .csv(let d): d.warnings
        case .gpx(let d): d.warnings
        default: []
        }
    }
}
