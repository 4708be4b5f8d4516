import ArgumentParser
import Foundation
import Ingest

/// Builds the decoder for a format: the one place the CLI lists every trace format it reads.
enum DecoderFactory {
    static func make(_ format: TraceFormat, source: String, device: String) -> (any TraceDecoding)? {
        TraceDecoder(format: format, source: source, defaultDevice: device)
    }
}

extension DecoderFactory {
    /// Opens a trace for `replay` or `convert`; an unreadable or unrecognisable file ends the command with status 2.
    static func open(_ path: String, format: String?, device: String?) throws -> TraceFileReader {
        do {
            return try TraceFileReader(path: path, format: format.flatMap(TraceFormat.init(rawValue:)), defaultDevice: device,
                                       makeDecoder: make)
        } catch {
            FileHandle.standardError.write("geotrigger: \(error)\n".data(using: .utf8)!)
            throw ExitCode(2)
        }
    }
}
