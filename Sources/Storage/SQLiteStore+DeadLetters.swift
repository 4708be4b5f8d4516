import TriggerEngine

/// The sinks' side of the file: each sink's cursor and its dead letters (the `sink_cursors` and `dead_letters`
/// tables).
extension SQLiteStore {
    public func settle(sink: String, through cursor: Int64, refused: [RefusedEntry], at time: Timestamp) async throws {
        try await asyncWrite { db in
            for r in refused {
                try DeadLetterRepository().add(sink: sink, entry: r.entry, status: r.status, response: r.response,
                                               attempts: r.attempts, at: time, in: db)
            }
            try OutboxRepository().acknowledge(sink: sink, through: cursor, in: db)
        }
    }

    public func deadLetterCount(sink: String) throws -> Int {
        try read { db in try DeadLetterRepository().count(sink: sink, in: db) }
    }

    public func deadLetters(sink: String?, limit: Int) throws -> [DeadLetter] {
        try read { db in try DeadLetterRepository().all(sink: sink, limit: limit, in: db) }
    }

    public func deadLetter(id: Int64) throws -> DeadLetter? {
        try read { db in try DeadLetterRepository().find(id: id, in: db) }
    }

    public func requestReplay(ofDeadLetter id: Int64, at time: Timestamp) throws -> Bool {
        try write { db in try DeadLetterRepository().requestReplay(id: id, at: time, in: db) }
    }

    public func deadLettersToReplay(sink: String, limit: Int) throws -> [DeadLetter] {
        try read { db in try DeadLetterRepository().replayRequested(sink: sink, limit: limit, in: db) }
    }

    public func deleteDeadLetter(id: Int64) async throws {
        try await asyncWrite { db in try DeadLetterRepository().delete(id: id, in: db) }
    }

    public func deadLetterRefusedAgain(id: Int64, status: Int?, response: String, at time: Timestamp) async throws {
        try await asyncWrite { db in
            try DeadLetterRepository().refusedAgain(id: id, status: status, response: response, at: time, in: db)
        }
    }
}
