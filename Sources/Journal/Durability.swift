/// How durable the records a wait names must be before it is answered (`DurableWaiting`).
public enum Durability: Sendable {
    /// What the sync policy lets a client be told: fsync'd with `JournalSync.always`, written with an interval
    /// (the timed fsync follows). Answers to clients wait for this.
    case acknowledgeable
    /// Fsync'd, when the sync policy syncs: what may be delivered, or dropped from memory, since a restart finds it.
    case synced
    /// Fsync'd at once rather than an interval later: what a checkpoint or a shutdown needs.
    case syncedNow
}
