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
    public nonisolated func add(converted: GeoJSONConversion) async throws(HostError) -> [(identifier: String, result: AddResult)] {
        let requests: [NotificationRequest]
        do {
            requests = try RequestDecoder().requests(of: converted)
            for r in requests { try RequestDecoder.checkNotificationSize(r) }
        } catch { throw .invalidRequest(error) }
        return try await add(decoded: requests, json: converted.json, text: converted.json.jsonText)
    }

    /// A body read once: GeoJSON converted to the SPEC §1 form and decoded (errors naming its features).
    public nonisolated static func converted(_ json: JSONValue, geoJSON options: GeoJSONOptions = GeoJSONOptions()) throws(HostError)
        -> GeoJSONConversion {
        do { return try RequestDecoder().convertGeoJSON(json, options: options) } catch { throw .invalidRequest(error) }
    }

    private func add(decoded requests: [NotificationRequest], json: JSONValue, text: String) async throws(HostError)
        -> [(identifier: String, result: AddResult)] {
        try checkHealthy()
        let outcome = state.applyRequests(requests, json: json)
        try await commit(.requests(json: text), outcome)
        if let e = outcome.requestError { throw .invalidRequest(e) }
        return outcome.added
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

    /// Removes every pending request (delivered records stay); returns their identifiers.
    public func removeAll() async throws(HostError) -> [String] {
        try checkHealthy()
        let outcome = state.apply(.removeAll)
        try await commit(.removeAll, outcome)
        return outcome.removed
    }
}
