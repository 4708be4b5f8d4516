/// Why the journal refused to start, to append or to read.
public enum JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed: which, on which file, and errno's text.
    case io(operation: String, path: String, reason: String)
    /// Damage that is not a torn tail: the file, the byte offset of the bad frame and what is wrong with it.
    case damaged(path: String, offset: Int64, reason: String)
    /// An fsync failed earlier: the kernel may have dropped the unsynced pages, so nothing more is acknowledged
    /// until a restart re-reads the journal from disk.
    case poisoned(reason: String)
    case closed

    public var description: String {
        switch self {
        case let .io(operation, path, reason): "\(operation) \(path): \(reason)"
        case let .damaged(path, offset, reason): "journal damaged: \(path) at byte \(offset): \(reason)"
        case let .poisoned(reason): "journal refuses appends until a restart: \(reason)"
        case .closed: "journal closed"
        }
    }
}
