/// How `serve` writes its log lines (`--log-format`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// The message first, then `key=value` pairs.
    case text
    /// One JSON object per line.
    case json
}
