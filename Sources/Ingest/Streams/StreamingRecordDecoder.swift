import TriggerEngine

/// The fix and sighting decoders seen alike, so one body reader serves every ingest endpoint and format.
public protocol StreamingRecordDecoder {
    associatedtype Record: Sendable
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    mutating func finish(onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    /// About the input as a whole (a CSV header, a device column that names every row apart), after `finish`.
    var warnings: [IngestWarning] { get }
    /// Whether `decodeNumbered`/`finishNumbered` split and number lines themselves (as `LineFramer` numbers them),
    /// so a reader can hand over whole chunks instead of one line per call.
    static var numbersLines: Bool { get }
    mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void)
    mutating func finishNumbered(onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void)
}

extension StreamingRecordDecoder {
    public static var numbersLines: Bool { false }
    public mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void) {
        preconditionFailure("\(Self.self) does not number lines: feed it whole lines")
    }
    public mutating func finishNumbered(onRecord: (Record, Int) -> Void, onError: (IngestError) -> Void) {
        preconditionFailure("\(Self.self) does not number lines: feed it whole lines")
    }
}

/// Every trace format the CLI reads (`POST /v1/fixes?format=`).
extension TraceDecoder: StreamingRecordDecoder {
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onFix: onRecord, onError: onError)
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onFix: onRecord, onError: onError)
    }
}

extension NDJSONFixDecoder: StreamingRecordDecoder {
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onFix: onRecord, onError: onError)
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onFix: onRecord, onError: onError)
    }

    public static var numbersLines: Bool { true }

    public mutating func decodeNumbered(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onNumberedFix: onRecord, onError: onError)
    }

    public mutating func finishNumbered(onRecord: (LocationFix, Int) -> Void, onError: (IngestError) -> Void) {
        finish(onNumberedFix: onRecord, onError: onError)
    }
}

extension NDJSONSightingDecoder: StreamingRecordDecoder {
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onSighting: onRecord, onError: onError)
    }

    public mutating func finish(onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void) {
        finish(onSighting: onRecord, onError: onError)
    }

    public var warnings: [IngestWarning] { [] }
}
