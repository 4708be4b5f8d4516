#if canImport(Glibc)
import SystemErrors
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TriggerEngine

/// Reads a trace file (or standard input, `-`) in large chunks through the decoder its content calls for.
/// The device id defaults to the file's base name, so per-vehicle logs need no device column.
public struct TraceFileReader {
    public let path: String
    public let format: TraceFormat
    public let size: Int?
    private var decoder: any StreamingRecordDecoder<LocationFix>
    private let fd: Int32
    /// Bytes read to detect the format, decoded first: a pipe cannot be read twice.
    private var prefix: [UInt8]
    public private(set) var bytesRead = 0

    public static let chunkSize = 1 << 20
    /// How much of the input format detection looks at.
    public static let detectionPrefix = 8192

    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Opens the file and decides its format: `format` when given, else from its first bytes, else its extension.
    /// Standard input and other pipes are detected from their first bytes like files. `makeDecoder` builds the decoder
    /// for a format, source and default device (lets the caller plug in decoders and options).
    public init(path: String, format: TraceFormat? = nil, defaultDevice: String? = nil,
                makeDecoder: (TraceFormat, String, String) -> (any StreamingRecordDecoder<LocationFix>)?) throws(OpenError) {
        self.path = path
        let fd = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw OpenError(path: path, reason: SystemError.text()) }
        var st = stat()
        let size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        let name = path == "-" ? "stdin" : String(path.split(separator: "/").last ?? Substring(path))
        let device = defaultDevice ?? String(name.split(separator: ".").first ?? Substring(name))
        var prefix: [UInt8] = []
        var resolved = format
        do throws(OpenError) {
            // A named format is checked for binary content too when the file can be read ahead without waiting.
            if resolved == nil || (size != nil && resolved != .nmea) {
                prefix = try Self.readPrefix(fd, path: path, live: size == nil)
            }
            if resolved == nil {
                resolved = TraceFormat.detect(prefix: prefix, fileName: name)
                if resolved == .ndjson, TraceFormat.looksLikeRegions(prefix) {
                    throw OpenError(path: path, reason: "this looks like a region file (JSON requests or GeoJSON), not a "
                                        + "trace; the region file comes first: geotrigger replay REGIONS TRACE…")
                }
            }
            if resolved != .nmea, let binary = TraceFormat.binaryEvidence(prefix) {
                // Its bytes are never echoed: they would garble the terminal and say nothing.
                throw OpenError(path: path, reason: TraceFormat.binaryReason(binary))
            }
            guard let resolved else {
                throw OpenError(path: path, reason: prefix.isEmpty
                    ? "empty, and its name does not tell the trace format"
                    : "cannot tell the trace format from its content or name; use --format")
            }
            guard let d = makeDecoder(resolved, path, device) else {
                throw OpenError(path: path, reason: "no decoder for \(resolved.rawValue) in this build")
            }
            self.decoder = d
            self.format = resolved
        } catch {
            if fd > 0 { close(fd) }
            throw error
        }
        self.fd = fd
        self.size = size
        self.prefix = prefix
    }

    /// The decoder's warnings about the input as a whole; complete after `readAll`.
    public var warnings: [IngestWarning] { decoder.warnings }

    /// Reads up to `detectionPrefix` bytes. From a pipe it stops as soon as whole lines tell the format (for JSON,
    /// once an object has closed), or when a line is in and nothing more arrives for 200 ms, so a live stream
    /// (`tail -f`, a slow producer) is not held back until kilobytes have gathered.
    private static func readPrefix(_ fd: Int32, path: String, live: Bool) throws(OpenError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: detectionPrefix)
        var count = 0
        while count < detectionPrefix {
            if live, let lastNewline = buffer[0..<count].lastIndex(of: 10) {
                let lines = Array(buffer[0...lastNewline])
                switch TraceFormat.detect(prefix: lines, fileName: "") {
                case .csv?, .nmea?, .gpx?: return Array(buffer[0..<count])
                case .some where lines.contains(UInt8(ascii: "}")): return Array(buffer[0..<count])
                default:
                    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&p, 1, 200) == 0 { return Array(buffer[0..<count]) }
                }
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, detectionPrefix - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw OpenError(path: path, reason: SystemError.text())
            }
            if n == 0 { break }
            count += n
        }
        return Array(buffer[0..<count])
    }

    /// Reads and decodes everything, calling back per fix and per error; `progress` after each chunk.
    /// Stops early when `shouldContinue` returns false.
    public mutating func readAll(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void,
                                 shouldContinue: () -> Bool = { true }, progress: (Int) -> Void = { _ in }) throws(OpenError) {
        defer { if fd > 0 { close(fd) } }
        if !prefix.isEmpty {
            bytesRead += prefix.count
            prefix.withUnsafeBytes { decoder.decode($0, onRecord: onRecord, onError: onError) }
            prefix = []
            progress(bytesRead)
        }
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        while shouldContinue() {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, Self.chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                throw OpenError(path: path, reason: SystemError.text())
            }
            if n == 0 { break }
            bytesRead += n
            buffer.withUnsafeBytes { decoder.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n]), onRecord: onRecord, onError: onError) }
            progress(bytesRead)
        }
        decoder.finish(onRecord: onRecord, onError: onError)
    }
}
