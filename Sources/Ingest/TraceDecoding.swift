import TriggerEngine

/// A streaming decoder of one input. Bytes arrive in chunks of any size (a chunk may end mid-line or mid-element);
/// every complete record is decoded as soon as it is complete, and `finish` flushes whatever remains.
/// Decoders never throw and never crash on any input: each unusable record becomes one `IngestError`.
public protocol TraceDecoding {
    mutating func decode(_ chunk: UnsafeRawBufferPointer, onFix: (LocationFix) -> Void, onError: (IngestError) -> Void)
    mutating func finish(onFix: (LocationFix) -> Void, onError: (IngestError) -> Void)
    /// Warnings about the input as a whole, complete after `finish` (some may be known earlier).
    var warnings: [IngestWarning] { get }
}

extension TraceDecoding {
    public var warnings: [IngestWarning] { [] }
}
