import JSON
import Delivery
import EngineLog
import Journal
import Logging
import Sinks
import Storage
import TriggerEngine

/// Requests: added, replaced and removed through the same path as fixes (evaluated, journaled, answered once durable).
extension EngineHost {
    public typealias AddResult = RequestAddResult

    /// Adds or replaces requests given as JSON (one object, an array, or GeoJSON Features), all or none: every request is decoded and
    /// checked before the first is added. Should the engine still refuse one, the ones before it are kept.
    /// Decoding and checking happen before the actor is entered: a large body (tens of thousands of GeoJSON
    /// features) must not hold up fixes and sightings while it is read.
    public nonisolated func add(_ json: JSONValue, geoJSON options: GeoJSONOptions = GeoJSONOptions()) async throws(HostError)
        -> [(identifier: String, result: AddResult)] {
        try await add(converted: Self.converted(json, geoJSON: options))
    }

    /// `add(_:geoJSON:)` for a body already read by `converted(_:geoJSON:)` (whose defaults a response reports).
    /// A body of more than `requestsPerRecord` requests is applied and journaled in pieces of that many, each one
    /// job on the engine's thread: fixes that arrive meanwhile are evaluated between pieces, not after the whole
    /// body (a fix between two pieces sees the requests of the pieces before it). The answer waits for the last
    /// piece to be durable. Each request's JSON text is written here, off the engine's thread.
    public nonisolated func add(converted: GeoJSONConversion) async throws(HostError) -> [(identifier: String, result: AddResult)] {
        let requests: [NotificationRequest]
        do {
            requests = try RequestDecoder().requests(of: converted)
        } catch { throw .invalidRequest(error) }
        guard let items = converted.json.arrayValue else {
            return try await add(decoded: requests, texts: [converted.json.jsonText], isArray: false)
        }
        return try await add(decoded: requests, texts: requests.indices.map { items[$0].jsonText }, isArray: true)
    }

    /// Adds requests already decoded, each with its JSON text (as the listing and the journal keep it): the path of
    /// a body the byte reader read whole (`RequestDecoder.decodeRequestsWithTexts`), with no tree. `isArray`: the
    /// body was an array (a one-object body is one request whose text is the record's).
    public nonisolated func add(decoded requests: [NotificationRequest], texts: [String], isArray: Bool) async throws(HostError)
        -> [(identifier: String, result: AddResult)] {
        do {
            for r in requests { try RequestDecoder.checkNotificationSize(r) }
        } catch { throw .invalidRequest(error) }
        guard isArray else {
            let outcome = try await applyPiece(requests, texts: texts, isArray: false, text: texts.first ?? "null", firstIndex: 0)
            try await acknowledgeable(outcome.end)
            if let e = outcome.requestError { throw .invalidRequest(e) }
            return outcome.added
        }
        var added: [(identifier: String, result: AddResult)] = []
        added.reserveCapacity(requests.count)
        var start = 0
        repeat {
            let end = min(requests.count, start + Self.requestsPerRecord)
            let piece = Array(texts[start..<end])
            let text = "[" + piece.joined(separator: ",") + "]"
            let outcome = try await applyPiece(Array(requests[start..<end]), texts: piece, isArray: true, text: text, firstIndex: start)
            added += outcome.added
            if end == requests.count || outcome.requestError != nil {
                try await acknowledgeable(outcome.end)
                if let e = outcome.requestError { throw .invalidRequest(e) }
                return added
            }
            start = end
        } while true
    }

    /// Requests per journal record (and per job on the engine's thread) of a large body: small enough that a
    /// piece holds fixes up for a few milliseconds, large enough that the records add little to the journal.
    public nonisolated static var requestsPerRecord: Int { 2_000 }

    /// A body read once: GeoJSON converted to the SPEC §1 form and decoded (errors naming its features).
    public nonisolated static func converted(_ json: JSONValue, geoJSON options: GeoJSONOptions = GeoJSONOptions()) throws(HostError)
        -> GeoJSONConversion {
        do { return try RequestDecoder().convertGeoJSON(json, options: options) } catch { throw .invalidRequest(error) }
    }

    /// One piece of a body applied and handed to the journal, on the engine's thread; returns the position its
    /// durability must reach.
    private func applyPiece(_ requests: [NotificationRequest], texts: [String], isArray: Bool, text: String,
                            firstIndex: Int) throws(HostError)
        -> (end: UInt64, added: [(identifier: String, result: AddResult)], requestError: RequestError?) {
        try checkHealthy()
        let outcome = state.applyRequests(requests, texts: texts, isArray: isArray, firstIndex: firstIndex)
        let end = write(.requests(json: text), outcome)
        return (end, outcome.added, outcome.requestError)
    }

    /// Returns once the records before `end` may be acknowledged.
    private nonisolated func acknowledgeable(_ end: UInt64) async throws(HostError) {
        let failure = await withCheckedContinuation { c in whenAcknowledgeable(end) { c.resume(returning: $0) } }
        if let failure { throw failure }
    }

    /// GeoJSON bodies in the SPEC §1 form they stand for.
    public nonisolated static func specForm(_ json: JSONValue, geoJSON options: GeoJSONOptions = GeoJSONOptions()) throws(HostError) -> JSONValue {
        try converted(json, geoJSON: options).json
    }

    /// Removes the given requests; returns those that were pending.
    public func remove(_ identifiers: [String]) async throws(HostError) -> [String] {
        try checkHealthy()
        let input = HostInput.remove(identifiers: identifiers)
        let outcome = state.apply(input)
        try await commit(input, outcome)
        return outcome.removed
    }

    /// Defines or redefines a device group (`devices`), or removes it (nil), through the journal as any change;
    /// returns whether it existed before.
    public func setGroup(_ name: String, devices: [String]?) async throws(HostError) -> Bool {
        try checkHealthy()
        let input = HostInput.group(name: name, devices: devices)
        let outcome = state.apply(input)
        try await commit(input, outcome)
        return outcome.groupExisted
    }

    /// Removes every pending request (delivered records stay); returns their identifiers.
    public func removeAll() async throws(HostError) -> [String] {
        try checkHealthy()
        let outcome = state.apply(.removeAll)
        try await commit(.removeAll, outcome)
        return outcome.removed
    }
}
