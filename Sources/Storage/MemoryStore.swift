import EngineLog
import JSON
import Synchronization
import TriggerEngine

/// `StateStore` in memory, for tests of the logic above it (a host's restore, a sink's cursor and dead letters, the
/// API's listing) that are not about SQLite. Same contract as `SQLiteStore`: each call is atomic; nothing survives
/// the process, and there is never legacy state.
public final class MemoryStore: StateStore {
    private struct State {
        var requests: [String: StoredRequest] = [:]
        var delivered: [String: DeliveredEntry] = [:]
        var cursors: [String: Int64] = [:]
        var letters: [Int64: DeadLetter] = [:]
        var nextLetter: Int64 = 1
    }

    private let state = Mutex(State())

    public init() {}

    public var unhealthyReason: String? { nil }
    public func close() throws {}

    // MARK: Sinks

    public func sinkCursors() throws -> [String: Int64] { state.withLock { $0.cursors } }

    public func registerSinks(_ cursors: [String: Int64]) throws {
        state.withLock { s in for (sink, cursor) in cursors { Self.acknowledge(&s, sink: sink, through: cursor) } }
    }

    public func settle(sink: String, through cursor: Int64, refused: [RefusedEntry], at time: Timestamp) async throws {
        state.withLock { s in
            for r in refused {
                var entry = r.entry
                // As the SQLite table keeps them: the time it was enqueued stands for both.
                entry.createdAt = entry.enqueuedAt ?? entry.createdAt
                entry.enqueuedAt = entry.createdAt
                entry.identifier = ""
                s.letters[s.nextLetter] = DeadLetter(id: s.nextLetter, sink: sink, entry: entry, status: r.status, response: r.response,
                                                     failedAt: time, attempts: r.attempts, replayRequestedAt: nil)
                s.nextLetter += 1
            }
            Self.acknowledge(&s, sink: sink, through: cursor)
        }
    }

    /// A cursor only moves forward.
    private static func acknowledge(_ s: inout State, sink: String, through cursor: Int64) {
        s.cursors[sink] = max(s.cursors[sink] ?? cursor, cursor)
    }

    // MARK: Dead letters

    public func deadLetterCount(sink: String) throws -> Int { state.withLock { $0.letters.values.count { $0.sink == sink } } }

    public func deadLetters(sink: String?, limit: Int) throws -> [DeadLetter] {
        state.withLock { s in
            Array(s.letters.values.filter { sink == nil || $0.sink == sink }.sorted { $0.id > $1.id }.prefix(limit))
        }
    }

    public func deadLetter(id: Int64) throws -> DeadLetter? { state.withLock { $0.letters[id] } }

    public func requestReplay(ofDeadLetter id: Int64, at time: Timestamp) throws -> Bool {
        state.withLock { s in
            guard s.letters[id] != nil else { return false }
            s.letters[id]?.replayRequestedAt = time
            return true
        }
    }

    public func deadLettersToReplay(sink: String, limit: Int) throws -> [DeadLetter] {
        state.withLock { s in
            let waiting = s.letters.values.filter { $0.sink == sink && $0.replayRequestedAt != nil }
            return Array(waiting.sorted { ($0.replayRequestedAt!, $0.id) < ($1.replayRequestedAt!, $1.id) }.prefix(limit))
        }
    }

    public func deleteDeadLetter(id: Int64) async throws { _ = state.withLock { $0.letters.removeValue(forKey: id) } }

    public func deadLetterRefusedAgain(id: Int64, status: Int?, response: String, at time: Timestamp) async throws {
        state.withLock { s in
            guard var letter = s.letters[id] else { return }
            letter.status = status
            letter.response = response
            letter.failedAt = time
            letter.attempts += 1
            letter.replayRequestedAt = nil
            s.letters[id] = letter
        }
    }

    // MARK: The request listing

    public func requestsPage(after cursor: String?, offset: Int, limit: Int, region: String?, device: String?) throws -> [StoredRequest] {
        let all = state.withLock { s in s.requests.values.filter { $0.identifier > (cursor ?? "") } }
        let matching = all.filter { Self.matches($0, region: region, device: device) }.sorted { $0.identifier < $1.identifier }
        return Array(matching.dropFirst(offset).prefix(limit))
    }

    /// The SQLite listing's filter, on the stored JSON: the region's id, and a `devices` list that is absent, null,
    /// `"*"`, or names the device or `"*"`.
    private static func matches(_ r: StoredRequest, region: String?, device: String?) -> Bool {
        guard region != nil || device != nil else { return true }
        guard let json = try? JSONParser.parse(r.json), let trigger = json["trigger"] else { return false }
        if let region, trigger["region"]?["id"]?.stringValue != region { return false }
        if let device {
            switch trigger["devices"] {
            case nil, .null?: return true
            case .string(let s)?: return s == "*"
            case .array(let list)?: return list.contains { $0.stringValue == device || $0.stringValue == "*" }
            default: return false
            }
        }
        return true
    }

    public func request(_ identifier: String) throws -> StoredRequest? { state.withLock { $0.requests[identifier] } }

    public func requests() throws -> [StoredRequest] {
        state.withLock { $0.requests.values.sorted { $0.identifier < $1.identifier } }
    }

    public func deliveredRequests() throws -> [DeliveredEntry] {
        state.withLock { $0.delivered.values.sorted { $0.identifier < $1.identifier } }
    }

    public func listing() throws -> (requests: [StoredRequest], delivered: [DeliveredEntry]) {
        state.withLock { s in
            (s.requests.values.sorted { $0.identifier < $1.identifier }, s.delivered.values.sorted { $0.identifier < $1.identifier })
        }
    }

    public func saveRequests(_ requests: [StoredRequest]) throws {
        state.withLock { s in
            for r in requests {
                s.requests[r.identifier] = r
                s.delivered[r.identifier] = nil
            }
        }
    }

    public func deleteRequests(_ identifiers: [String]) throws {
        state.withLock { s in for id in identifiers { s.requests[id] = nil } }
    }

    public func deleteAllRequests() throws { state.withLock { $0.requests.removeAll() } }

    public func markDelivered(_ entries: [DeliveredEntry]) throws {
        state.withLock { s in
            for e in entries {
                s.delivered[e.identifier] = e
                s.requests[e.identifier] = nil
            }
        }
    }

    public func replaceRequestListing(_ requests: [StoredRequest], delivered: [DeliveredEntry]) throws {
        state.withLock { s in
            s.requests = Dictionary(requests.map { ($0.identifier, $0) }, uniquingKeysWith: { $1 })
            s.delivered = Dictionary(delivered.map { ($0.identifier, $0) }, uniquingKeysWith: { $1 })
        }
    }

    // MARK: A file from before the journal: never, in memory

    public func outboxFedPosition() throws -> UInt64 { 0 }
    public func legacyOutbox() throws -> [StoredNotification] { [] }
    public func clearLegacyOutbox() throws {}
    public func hasLegacyState() throws -> Bool { false }
    public func dropLegacyDeviceState() throws {}
    public func restore(into engine: TriggerEngine, decoder: RequestDecoder) throws -> RestoreSummary { RestoreSummary() }
}
