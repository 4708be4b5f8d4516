import Foundation
import JSON
import Logging
import Server

/// `serve`'s log lines on standard error (`--log-format`). Text: the message first, then the `key=value` pairs
/// (sorted by key, values as they are: a reader splits a pair at its first `=`); under systemd (`JOURNAL_STREAM` set) no timestamp, since the journal adds its
/// own, and the level as a `<N>` syslog prefix the journal reads as the priority (`journalctl -p warning`); else a
/// UTC timestamp and the level. JSON: one object per line, `time`, `level`, `label`, `message`, then the pairs.
/// Durations written as Swift prints them (`0.36971070258408617 seconds`) are rounded to the millisecond (`0.37 s`).
struct ServeLogHandler: LogHandler {
    let label: String
    let format: LogFormat
    let journal: Bool
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, format: LogFormat, level: Logger.Level, environment: [String: String]) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.journal = environment["JOURNAL_STREAM"] != nil
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var pairs = metadata
        if let provided = metadataProvider?.get() { pairs.merge(provided) { _, new in new } }
        if let own = event.metadata { pairs.merge(own) { _, new in new } }
        let sorted = pairs.sorted { $0.key < $1.key }.map { ($0.key, Self.rounded("\($0.value)")) }
        let line = switch format {
        case .text: text(event, sorted)
        case .json: json(event, sorted)
        }
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    func text(_ event: LogEvent, _ pairs: [(String, String)]) -> String {
        var line = journal ? "<\(Self.syslogPriority(event.level))>" : "\(Self.now()) \(event.level) "
        line += "\(event.message)"
        for (key, value) in pairs { line += " \(key)=\(value)" }
        return line
    }

    func json(_ event: LogEvent, _ pairs: [(String, String)]) -> String {
        var fields: [(key: String, value: JSONValue)] = [
            ("time", .string(Self.now())), ("level", .string(event.level.rawValue)), ("label", .string(label)),
            ("message", .string("\(event.message)")),
        ]
        for (key, value) in pairs where !["time", "level", "label", "message"].contains(key) { fields.append((key, .string(value))) }
        return JSONValue.object(fields).jsonText
    }

    static func now() -> String {
        Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `0.36971070258408617 seconds` → `0.37 s`; anything else as it is.
    static func rounded(_ value: String) -> String {
        guard value.hasSuffix(" seconds"), let seconds = Double(value.dropLast(" seconds".count)) else { return value }
        return "\((seconds * 1000).rounded() / 1000) s"
    }

    /// sd-daemon(3)'s priorities.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
