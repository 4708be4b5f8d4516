import Logging
import NATS
import Synchronization

/// `InputLog` over JetStream: a stream per input partition (device placed by FNV-1a, as nats-server's subject
/// mapping computes it), and the requests stream.
struct JetStreamInputLog: InputLog {
    let connection: NATSConnection
    let names: ClusterNames
    let partitions: Int
    private let appender: CoalescingAppender

    init(connection: NATSConnection, names: ClusterNames, partitions: Int, logger: Logger) {
        self.connection = connection
        self.names = names
        self.partitions = partitions
        // Half of nats-server's default largest message (1 MB), so a joined message is never refused for its size.
        // A round's messages go out asynchronously and are awaited together: one round trip per round.
        let ids = MessageIDs()
        let logger = logger
        appender = CoalescingAppender(limit: 512 << 10) { messages in
            do throws(NATSError) {
                for m in messages {
                    let queued: Result<Void, NATSError> = m.data.withUnsafeBytes { b in
                        Result { () throws(NATSError) in
                            try connection.publishAsync(subject: names.inputSubject(m.partition), data: b, messageId: ids.next())
                        }
                    }
                    if case .failure = queued { connection.abandonAsyncPublishes() }
                    try queued.get()
                }
                let outcome = try connection.waitForAsyncPublishes(timeout: connection.apiWait)
                logger.debug("input messages stored", metadata: [
                    "partitions": "\(messages.map(\.partition))", "stored": "\(outcome.stored.map { "\($0.id)@\($0.sequence)" })",
                    "missing": "\(outcome.missing)"])
                return outcome.missing == 0 ? nil : .unavailable("\(outcome.missing) of \(messages.count) messages not stored")
            } catch {
                return .unavailable("\(error)")
            }
        }
    }

    func placement(of device: String) -> (partition: Int, key: String?) { (Partitioning.partition(of: device, count: partitions), nil) }

    func append(_ messages: [LogAppend]) async throws(ClusterError) {
        let appender = self.appender
        // The parts go out in the next round of writes (joined there with other batches' parts for the same
        // partition); each is answered with its round's outcome.
        let failures = await withTaskGroup(of: ClusterError?.self) { group in
            for m in messages {
                group.addTask { await appender.append(partition: m.partition, data: m.data) }
            }
            var failures: [ClusterError] = []
            for await f in group { if let f { failures.append(f) } }
            return failures
        }
        if let first = failures.first {
            throw .unavailable("JetStream did not store \(failures.count) of \(messages.count) partition batches: \(first)")
        }
    }

    func appendRequest(_ data: [UInt8]) async throws(ClusterError) -> UInt64 {
        let connection = self.connection, subject = names.requestsSubject
        do {
            return try await NATSConnection.blocking { () throws(NATSError) in try connection.publish(subject: subject, data: data).sequence }
        } catch {
            throw .unavailable("JetStream did not store the request change: \(error)")
        }
    }

    var failureReason: String? {
        connection.isConnected ? nil : "not connected to JetStream (\(connection.servers.joined(separator: ",")))"
    }
}

/// Ids for the input messages this process publishes: unique across processes and restarts (a random prefix), so
/// JetStream's duplicate window never takes one for another's repeat, and each answer matches its publish.
final class MessageIDs: Sendable {
    private let prefix = String(UInt64.random(in: .min ... .max), radix: 36)
    private let counter = Atomic<UInt64>(0)

    func next() -> String { "\(prefix)-\(counter.add(1, ordering: .relaxed).newValue)" }
}
