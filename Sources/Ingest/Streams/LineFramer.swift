#if canImport(Glibc)
import Glibc
#endif

/// Splits a byte stream into lines (with their `\n`), numbered from 1, keeping a partial last line between chunks.
/// Decoders that do not number lines themselves (`StreamingRecordDecoder.numbersLines`) are then fed whole lines,
/// so the server knows which line each decoded record came from.
///
/// A line inside one chunk is handed over in place (found with `memchr`, nothing copied); only a line that spans
/// chunks is gathered in a buffer kept across lines. (Appending byte by byte was ~9 % of `serve`'s samples under
/// HTTP ingest.)
public struct LineFramer {
    private var pending: [UInt8] = []
    public private(set) var lineNumber = 0

    public init() {}

    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onLine: (Int, UnsafeRawBufferPointer) -> Void) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var start = 0
        while start < bytes.count, let hit = memchr(base + start, 0x0A, bytes.count - start) {
            let end = base.distance(to: UnsafeRawPointer(hit)) + 1
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            lineNumber += 1
            if pending.isEmpty {
                onLine(lineNumber, line)
            } else {
                pending.append(contentsOf: line)
                pending.withUnsafeBytes { onLine(lineNumber, $0) }
                pending.removeAll(keepingCapacity: true)
            }
            start = end
        }
        if start < bytes.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...])) }
    }

    /// The last line when the body does not end with a newline.
    public mutating func finish(_ onLine: (Int, UnsafeRawBufferPointer) -> Void) {
        guard !pending.isEmpty else { return }
        lineNumber += 1
        pending.append(UInt8(ascii: "\n"))
        pending.withUnsafeBytes { onLine(lineNumber, $0) }
        pending.removeAll()
    }
}
