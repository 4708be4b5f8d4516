/// The one way to wait for written records to become durable, at every layer that writes them (the journal, the
/// host's log, the host's record writer): a callback, answered from the thread that decided it, and an async form
/// built on it. Each layer adds only what it must wait for first (the writer: its own write) and passes the rest
/// down, so the answer to a client is one callback chain with no task in between.
public protocol DurableWaiting: Sendable {
    /// Calls `done` once every record before `position` is as durable as `level` asks, or with why it never will
    /// be. A position not yet written waits for the write that reaches it.
    func whenDurable(through position: UInt64, _ level: Durability, _ done: @escaping @Sendable (Result<Void, JournalError>) -> Void)
}

extension DurableWaiting {
    /// `whenDurable` for a task: returns once every record before `position` is as durable as `level` asks.
    public func waitDurable(through position: UInt64, _ level: Durability = .synced) async throws(JournalError) {
        let result: Result<Void, JournalError> = await withCheckedContinuation { c in
            whenDurable(through: position, level) { c.resume(returning: $0) }
        }
        try result.get()
    }
}
