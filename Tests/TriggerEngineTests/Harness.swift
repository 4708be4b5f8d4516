import JSON
import Foundation
import Geometry
@testable import TriggerEngine

/// Small helpers so each test reads like the rule it pins.
final class Harness {
    let engine: TriggerEngine
    let decoder = RequestDecoder()
    var out: [FiredNotification] = []

    init(_ configuration: TriggerEngine.Configuration = .init()) { engine = TriggerEngine(configuration: configuration) }

    /// Adds a request given as JSON text.
    @discardableResult
    func add(_ json: String) throws -> NotificationRequest {
        let r = try decoder.decodeRequest(try JSONParser.parse(json))
        try engine.add(r)
        return r
    }

    /// A circle request with trigger options given as extra JSON members.
    @discardableResult
    func circle(_ id: String, lat: Double, lon: Double, radius: Double, _ extra: String = "") throws -> NotificationRequest {
        try add("""
            {"identifier":"\(id)","content":{"title":"{event} {region.id}"},
             "trigger":{"region":{"type":"circle","id":"\(id)-region","center":{"latitude":\(lat),"longitude":\(lon)},"radius":\(radius)},
             "repeats":true\(extra.isEmpty ? "" : ",")\(extra)}}
            """)
    }

    @discardableResult
    func polygon(_ id: String, geometry: String, _ extra: String = "") throws -> NotificationRequest {
        try add("""
            {"identifier":"\(id)","content":{"title":"{event}"},
             "trigger":{"region":{"type":"polygon","id":"\(id)-region","geometry":\(geometry)},
             "repeats":true\(extra.isEmpty ? "" : ",")\(extra)}}
            """)
    }

    /// Sends a fix at `t` seconds past a fixed epoch; returns what it emitted.
    @discardableResult
    func fix(_ device: String, _ t: Double, _ lat: Double, _ lon: Double, accuracy: Double? = nil) -> [FiredNotification] {
        var emitted: [FiredNotification] = []
        engine.process(LocationFix(device: device, timestamp: Harness.time(t), latitude: lat, longitude: lon,
                                   horizontalAccuracy: accuracy)) { emitted.append($0) }
        out += emitted
        return emitted
    }

    @discardableResult
    func advance(_ t: Double) -> [FiredNotification] {
        var emitted: [FiredNotification] = []
        engine.advance(to: Harness.time(t)) { emitted.append($0) }
        out += emitted
        return emitted
    }

    /// An observer's listening tick at `t`: it heard nothing more up to then.
    @discardableResult
    func listen(_ device: String, _ t: Double) -> [FiredNotification] {
        var emitted: [FiredNotification] = []
        engine.observerListening(device: device, at: Harness.time(t)) { emitted.append($0) }
        out += emitted
        return emitted
    }

    /// The end of input: every device falls silent.
    @discardableResult
    func finish() -> [FiredNotification] {
        var emitted: [FiredNotification] = []
        engine.finish { emitted.append($0) }
        out += emitted
        return emitted
    }

    /// A configuration with an explicit clock and allowed lateness.
    static func configuration(_ clock: TriggerEngine.Configuration.Clock, lateness: Double?) -> TriggerEngine.Configuration {
        var c = TriggerEngine.Configuration(clock: clock)
        c.allowedLateness = lateness
        return c
    }

    static let epoch = Timestamp(year: 2026, month: 11, day: 20, hour: 8)
    static func time(_ t: Double) -> Timestamp { Timestamp(microseconds: epoch.microseconds + Int64(t * 1_000_000)) }

    /// `event:identifier:device` for compact expectations.
    static func summary(_ ns: [FiredNotification]) -> [String] { ns.map { "\($0.event.rawValue):\($0.identifier):\($0.device)" } }
}

/// A point at an exact ellipsoidal distance and bearing from `origin`.
func destination(_ origin: Coordinate, bearing: Double, metres: Double) -> Coordinate {
    Geodesy.destination(from: origin, bearing: bearing, distance: metres)
}
