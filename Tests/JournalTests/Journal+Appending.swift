import Journal

extension Journal {
    /// Appends `records` in order and returns their positions once they are durable: what most of these tests
    /// need from the journal in one call (the service writes and waits separately).
    @discardableResult
    func append(_ records: [JournalRecord]) async throws(JournalError) -> Range<UInt64> {
        let range = try write(records)
        try await waitDurable(through: range.upperBound)
        return range
    }
}
