/// Splits a byte stream into lines (with their `\n`), numbered from 1, keeping a partial last line between chunks.
/// The Ingest decoders are then fed whole lines, so the server knows which line each decoded record came from.
struct LineFramer {
    private var pending: [UInt8] = []
    private(set) var lineNumber = 0

    mutating func feed(_ bytes: some Collection<UInt8>, _ onLine: (Int, [UInt8]) -> Void) {
        for b in bytes {
            pending.append(b)
            if b == UInt8(ascii: "\n") {
                lineNumber += 1
                onLine(lineNumber, pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The last line when the body does not end with a newline.
    mutating func finish(_ onLine: (Int, [UInt8]) -> Void) {
        guard !pending.isEmpty else { return }
        lineNumber += 1
        pending.append(UInt8(ascii: "\n"))
        onLine(lineNumber, pending)
        pending.removeAll()
    }
}
