import NATS

/// The requests stream read with a pull consumer.
struct JetStreamRequestsReader: OrderedLogReader {
    let consumer: PullConsumer

    func fetch(_ count: Int, timeout: Duration) throws -> [LogEntry] {
        try consumer.fetch(count, timeout: timeout).map { LogEntry(sequence: $0.sequence, data: $0.data) }
    }
}
