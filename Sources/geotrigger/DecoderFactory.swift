import Ingest

/// Builds the decoder for a format with the command's options: the one place the CLI lists every trace format it reads.
struct DecoderFactory: Sendable {
    var options: TraceOptions

    func make(_ format: TraceFormat, source: String, device: String) -> (any TraceDecoding)? {
        TraceDecoder(format: format, source: source, defaultDevice: device, options: options)
    }

    /// Opens a trace for `replay` or `convert`, detecting its format unless one is given.
    func open(_ path: String, format: TraceFormat?, device: String?) throws(TraceFileReader.OpenError) -> TraceFileReader {
        try TraceFileReader(path: path, format: format, defaultDevice: device, makeDecoder: make)
    }
}
