import Ingest

/// Builds the decoder for a format: the one place the CLI lists every trace format it reads.
enum DecoderFactory {
    static func make(_ format: TraceFormat, source: String, device: String) -> (any TraceDecoding)? {
        TraceDecoder(format: format, source: source, defaultDevice: device)
    }
}
