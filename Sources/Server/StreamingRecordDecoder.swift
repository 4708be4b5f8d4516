import Ingest
import TriggerEngine

/// The fix and sighting decoders seen alike, so one body reader serves every ingest endpoint and format.
protocol StreamingRecordDecoder {
    associatedtype Record: Sendable
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    mutating func finish(onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    /// About the input as a whole (a CSV header, a device column that names every row apart), after `finish`.
    var warnings: [IngestWarning] { get }
}

/// Every trace format the CLI reads (`POST /v1/fixes?format=`).
extension TraceDecoder: StreamingRecordDecoder {
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onFix: onRecord, onError: onError)
    }

    mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onFix: onRecord, onError: onError)
    }
}

extension NDJSONFixDecoder: StreamingRecordDecoder {
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onFix: onRecord, onError: onError)
    }

    mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        finish(onFix: onRecord, onError: onError)
    }
}

extension NDJSONSightingDecoder: StreamingRecordDecoder {
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void) {
        decode(chunk, onSighting: onRecord, onError: onError)
    }

    mutating func finish(onRecord: (BeaconSighting) -> Void, onError: (IngestError) -> Void) {
        finish(onSighting: onRecord, onError: onError)
    }

    var warnings: [IngestWarning] { [] }
}
