import Ingest
import TriggerEngine

/// The NDJSON fix and sighting decoders seen alike, so one body reader serves both endpoints.
protocol StreamingRecordDecoder {
    associatedtype Record: Sendable
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (Record) -> Void, onError: (IngestError) -> Void)
    mutating func finish(onRecord: (Record) -> Void, onError: (IngestError) -> Void)
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
}
