/// Why the store cannot be opened.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// `PRAGMA quick_check` found damage: the file, and SQLite's first findings.
    case damaged(path: String, problems: [String])

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the database \(path): \(reason)"
        case let .damaged(path, problems):
            "the database \(path) is damaged (PRAGMA quick_check): \(problems.prefix(5).joined(separator: "; ")); restore it from a backup or move it aside"
        }
    }
}
