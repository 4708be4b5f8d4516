import TriggerEngine

/// The one decoder protocol: every format's decoder (fixes from GPX, NMEA, CSV, NDJSON, OwnTracks, Traccar, gpsd;
/// sightings from NDJSON), for files, HTTP bodies and streams alike. Bytes arrive in chunks of any size (a chunk may
/// end mid-line or mid-element); every complete record is decoded as soon as it is complete, and `finish` flushes
/// whatever remains. Decoders never throw and never crash on any input: each unusable record becomes one
/// `IngestError`.
public protocol StreamingRecordDecoder<Record> {
    associatedtype Record: Sendable
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    mutating func finish(onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    /// About the input as a whole (a CSV header, a device column that names every row apart), after `finish`.
    var warnings: [IngestWarning] { get }
    /// Whether `decodeNumbered`/`finishNumbered` split and number lines themselves (as the reader's `LineSplitter` numbers them),
    /// so a reader can hand over whole chunks instead of one line per call.
    static var numbersLines: Bool { get }
    mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void)
    mutating func finishNumbered(onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void)
}

extension StreamingRecordDecoder {
    public var warnings: [IngestWarning] { [] }
    public static var numbersLines: Bool { false }
    public mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void) {
        preconditionFailure("\(Self.self) does not number lines: feed it whole lines")
    }
    public mutating func finishNumbered(onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void) {
        preconditionFailure("\(Self.self) does not number lines: feed it whole lines")
    }
}

extension NDJSONFixDecoder {
    public static var numbersLines: Bool { true }

    public mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onNumberedFix: onRecord, onError: onError)
    }

    public mutating func finishNumbered(onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void) {
        finish(onNumberedFix: onRecord, onError: onError)
    }
}
