#if canImport(Glibc)
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
    private var decoder: any TraceDecoding
    private let fd: Int32
    public private(set) var bytesRead = 0

    public static let chunkSize = 1 << 20

    public struct OpenError: Error, CustomStringConvertible, Sendable {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Opens the file and decides its format: `format` when given, else from its first bytes, else its extension.
    /// `makeDecoder` builds the decoder for a format (lets the caller plug in decoders of other modules).
    public init(path: String, format: TraceFormat? = nil, defaultDevice: String? = nil,
                makeDecoder: (TraceFormat, String, String) -> (any TraceDecoding)?) throws(OpenError) {
        self.path = path
        let fd = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw OpenError(path: path, reason: String(cString: strerror(errno))) }
        self.fd = fd
        var st = stat()
        size = fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
        let name = path == "-" ? "stdin" : String(path.split(separator: "/").last ?? Substring(path))
        let device = defaultDevice ?? String(name.split(separator: ".").first ?? Substring(name))
        var resolved = format
        if resolved == nil {
            var prefix = [UInt8](repeating: 0, count: 8192)
            let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 8192, 0) }
            if n > 0 { resolved = TraceFormat.detect(prefix: Array(prefix[0..<n]), fileName: name) }
            if n < 0, path != "-" {
                // Not seekable (a pipe): detection falls back to the name.
                resolved = TraceFormat.detect(prefix: [], fileName: name)
            }
        }
        guard let resolved else {
            if fd > 0 { close(fd) }
            throw OpenError(path: path, reason: "cannot tell the trace format from its content or name; use --format")
        }
        guard let d = makeDecoder(resolved, path, device) else {
            if fd > 0 { close(fd) }
            throw OpenError(path: path, reason: "no decoder for \(resolved.rawValue) in this build")
        }
        self.format = resolved
        self.decoder = d
    }

    /// Reads and decodes everything, calling back per fix and per error; `progress` after each chunk.
    /// Returns false if `onFix`/`onError` asked to stop by returning false from `shouldContinue`.
    public mutating func readAll(onFix: (LocationFix) -> Void, onError: (IngestError) -> Void,
                                 shouldContinue: () -> Bool = { true }, progress: (Int) -> Void = { _ in }) throws(OpenError) {
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        defer { if fd > 0 { close(fd) } }
        while shouldContinue() {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, Self.chunkSize) }
            if n < 0 {
                if errno == EINTR { continue }
                throw OpenError(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytesRead += n
            buffer.withUnsafeBytes { decoder.decode(UnsafeRawBufferPointer(rebasing: $0[0..<n]), onFix: onFix, onError: onError) }
            progress(bytesRead)
        }
        decoder.finish(onFix: onFix, onError: onError)
    }
}
