/// When a record written to the journal counts as acknowledged, the operator's trade between the disk and the
/// window a power cut can take (docs/service.md, "Durability").
///
/// - `always`: acknowledged once an fsync covers it (group commit: concurrent writes share one). Nothing
///   acknowledged is lost to a crash of the process or of the machine.
/// - `interval(d)`: acknowledged once written (in the page cache); an fsync covers it at most `d` later. A killed
///   process loses nothing (the kernel still holds the pages, and the next open syncs them); a power cut or kernel
///   crash can lose what was acknowledged in the last `d`. Records are written through the page cache, so a second's
///   records cost one written block, not one each, and `acknowledged.mark` is written without its own fsync (it
///   lags behind what is durable, never ahead). Notifications still reach the sinks only once durable.
public enum JournalSync: Sendable, Equatable, CustomStringConvertible {
    case always
    case interval(Duration)

    /// Parses `always` or `interval:DURATION` (DURATION: `1s`, `500ms`, `2m`, or plain seconds); nil otherwise.
    public init?(parsing text: String) {
        if text == "always" { self = .always; return }
        guard text.hasPrefix("interval:") else { return nil }
        let value = String(text.dropFirst("interval:".count))
        let units: [(suffix: String, nanoseconds: Double)] = [("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)]
        var number = value
        var scale = 1e9
        for (suffix, nanoseconds) in units where value.hasSuffix(suffix) {
            number = String(value.dropLast(suffix.count))
            scale = nanoseconds
            break
        }
        guard let n = Double(number), n.isFinite, n > 0 else { return nil }
        let nanoseconds = n * scale
        guard nanoseconds >= 1e6, nanoseconds <= 3600e9 else { return nil }
        self = .interval(.nanoseconds(Int64(nanoseconds)))
    }

    /// Records go past the page cache (`DirectTail`) only when each is synced on its own: with an interval, the
    /// page cache gathers a second's small records into one written block.
    var writesDirect: Bool { self == .always }

    public var description: String {
        switch self {
        case .always: return "always"
        case .interval(let d):
            let ms = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
            return ms % 1000 == 0 ? "interval:\(ms / 1000)s" : "interval:\(ms)ms"
        }
    }
}
