import TriggerEngine

/// What `replay` and `convert` read fixes from: a trace file (`TraceFileReader`), or a service's journal.
public protocol TraceSource {
    /// Total bytes, when known (progress).
    var size: Int? { get }
    /// Warnings about the input as a whole; complete after `readAll`.
    var warnings: [IngestWarning] { get }
    /// Reads everything in order, calling back per fix and per record error; `progress` with bytes read so far.
    /// Throws when the input cannot be read on (the fixes before stay delivered).
    mutating func readAll(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void,
                          shouldContinue: () -> Bool, progress: (Int) -> Void) throws
}

extension TraceFileReader: TraceSource {}
