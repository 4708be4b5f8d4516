import Ingest
import TriggerEngine

/// Builds the decoder for a format with the command's options: the one place the CLI lists every trace format it reads.
struct DecoderFactory: Sendable {
    var options: TraceOptions

    func make(_ format: TraceFormat, source: String, device: String) -> (any StreamingRecordDecoder<LocationFix>)? {
        TraceDecoder(format: format, source: source, defaultDevice: device, options: options)
    }

    /// Opens a trace for `replay` or `convert`: a service's journal directory as it is, any other path as a trace
    /// file whose format is detected unless one is given.
    func open(_ path: String, format: TraceFormat?, device: String?) throws -> any TraceSource {
        if JournalTraceSource.isJournal(path) { return try JournalTraceSource(directory: path) }
        return try TraceFileReader(path: path, format: format, defaultDevice: device, makeDecoder: make)
    }
}
