import Foundation
import JSON
import EngineLog
import Journal
import Logging
import TriggerEngine

/// Reads the requests log (a JetStream stream, or a Kafka topic of one partition) completely, from its first
/// message, and keeps every change in memory by sequence:
/// partition owners apply them from here, and the gateway stamps each input with the newest sequence seen.
/// Request changes are few and small; the log keeps them all, so a new instance starts from the first.
public final class RequestsFollower: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var changes: [HostInput] = []
    private var pending: Set<String> = []
    private var stopped = false
    /// A reader of the requests log from a sequence.
    private let open: @Sendable (UInt64) throws -> any OrderedLogReader
    private let logger: Logger

    init(logger: Logger, open: @escaping @Sendable (UInt64) throws -> any OrderedLogReader) {
        self.open = open
        self.logger = logger
    }

    /// The sequence of the newest change read (the log numbers them 1, 2, …).
    public var lastSequence: UInt64 { condition.withLock { UInt64(changes.count) } }

    /// Whether a request with this identifier is pending after the changes read so far.
    public func isPending(_ identifier: String) -> Bool { condition.withLock { pending.contains(identifier) } }

    /// The changes with sequences in `range`, waiting up to `timeout` for them to be read; nil on timeout.
    public func changes(_ range: ClosedRange<UInt64>, timeout: Duration) -> [HostInput]? {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18)
        condition.lock()
        defer { condition.unlock() }
        while UInt64(changes.count) < range.upperBound, !stopped {
            if !condition.wait(until: deadline) { return nil }
        }
        guard UInt64(changes.count) >= range.upperBound else { return nil }
        return Array(changes[Int(range.lowerBound - 1)..<Int(range.upperBound)])
    }

    public func stop() {
        condition.withLock { stopped = true; condition.broadcast() }
    }

    /// Reads until `stop()`; runs on a thread of its own.
    public func run() {
        var consumer: (any OrderedLogReader)?
        while !condition.withLock({ stopped }) {
            do {
                if consumer == nil { consumer = try open(lastSequence + 1) }
                for message in try consumer!.fetch(256, timeout: .milliseconds(200)) {
                    try append(message)
                }
            } catch {
                logger.warning("reading the requests log failed; reading again", metadata: ["error": "\(error)"])
                consumer = nil
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    private func append(_ message: LogEntry) throws {
        guard message.sequence == lastSequence + 1 else {
            // A consumer made again after a failure may repeat what was read; a gap would be purged changes.
            if message.sequence <= lastSequence { return }
            throw ClusterError.unavailable("requests log skipped from \(lastSequence) to \(message.sequence)")
        }
        guard let kind = message.data.first else { throw ClusterError.invalid("empty message \(message.sequence) in the requests log") }
        let input = try HostRecord(JournalRecord(kind: kind, payload: Array(message.data.dropFirst())), position: message.sequence).input
        condition.withLock {
            switch input {
            case .requests(let json):
                if let value = try? JSONParser.parse(json) {
                    for item in value.arrayValue ?? [value] {
                        if let id = item["identifier"]?.stringValue { pending.insert(id) }
                    }
                }
            case .remove(let ids): pending.subtract(ids)
            case .removeAll: pending.removeAll()
            default: break
            }
            changes.append(input)
            condition.broadcast()
        }
    }

    /// A request change as the requests log carries it.
    static func encode(_ input: HostInput, using w: inout ByteWriter) -> [UInt8] {
        let record = HostRecord(input: input).journalRecord(using: &w)
        return [record.kind] + record.payload
    }
}
