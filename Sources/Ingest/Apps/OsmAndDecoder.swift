import JSON
import TriggerEngine

/// Traccar Client and other senders of the OsmAnd protocol (https://www.traccar.org/osmand/): one position as query
/// or form parameters — `id` or `deviceid`, `lat`, `lon`, `timestamp` (Unix seconds or milliseconds, or ISO 8601),
/// `speed` (knots), `bearing`, `altitude`, `accuracy` (metres), `hdop` — or the JSON body of Traccar Client 8 and
/// later: `{"device_id": …, "location": {"timestamp": ISO 8601, "coords": {"latitude", "longitude", "accuracy",
/// "speed" (m/s), "heading", "altitude"}}}`, `location` also an array of them. Other parameters (`batt`, `charge`,
/// `valid`, …) are accepted and not used; `hdop` has no unit, so it is never taken for an accuracy in metres.
public enum OsmAndDecoder {
    static let rules = FixRules(
        names: FixFieldNames(device: "id", timestamp: "timestamp", latitude: "lat", longitude: "lon", accuracy: "accuracy",
                             altitude: "altitude", speed: "speed", course: "bearing"),
        timestamps: .flexible, numbersFromText: true, speedScale: 0.514_444, nonPositiveAccuracyIsUnknown: false)

    static let jsonRules = FixRules(
        names: FixFieldNames(device: "device_id", timestamp: "location.timestamp", latitude: "location.coords.latitude",
                             longitude: "location.coords.longitude", accuracy: "location.coords.accuracy",
                             altitude: "location.coords.altitude", speed: "location.coords.speed", course: "location.coords.heading"),
        timestamps: .flexible, numbersFromText: false, speedScale: 1, nonPositiveAccuracyIsUnknown: true)

    /// One position from query or form parameters (names as sent; the last of a repeated name wins).
    public static func fix(parameters: [(name: String, value: String)], source: String) -> Result<LocationFix, IngestError> {
        var fields = FixFields()
        for (name, value) in parameters {
            switch name {
            case "id", "deviceid": fields.device = .string(value)
            case "lat": fields.latitude = .string(value)
            case "lon": fields.longitude = .string(value)
            case "timestamp": fields.timestamp = .string(value)
            case "speed": fields.speed = .string(value)
            case "bearing", "heading": fields.course = .string(value)
            case "altitude": fields.altitude = .string(value)
            case "accuracy": fields.accuracy = .string(value)
            default: break
            }
        }
        // A timestamp of digits is Unix time: seconds, or milliseconds above 1e11 (as `flexible` reads numbers).
        if case .string(let t) = fields.timestamp, !t.isEmpty, t.allSatisfy(\.isNumber), let n = Double(t) { fields.timestamp = .number(n) }
        do throws(FieldProblem) {
            return .success(try fields.makeFix(rules, defaultDevice: nil))
        } catch {
            return .failure(error.ingestError(source: source, line: nil, offset: nil))
        }
    }

    /// The positions of a Traccar Client JSON body; nil when it is not one (no `location`).
    public static func fixes(json: JSONValue, source: String) -> [Result<LocationFix, IngestError>]? {
        guard let location = json["location"] else { return nil }
        let device = json["device_id"].flatMap { $0.stringValue ?? $0.doubleValue.map { JSONValue.number($0).jsonText } }
        let items = location.arrayValue ?? [location]
        return items.map { item in
            var fields = FixFields()
            if let device { fields.device = .string(device) }
            let coords = item["coords"]
            func raw(_ v: JSONValue?) -> RawValue { v.map(RawValue.init) ?? .absent }
            fields.latitude = raw(coords?["latitude"])
            fields.longitude = raw(coords?["longitude"])
            fields.accuracy = raw(coords?["accuracy"])
            fields.altitude = raw(coords?["altitude"])
            // The geolocation library writes -1 for an unknown speed or heading.
            if let s = coords?["speed"]?.doubleValue, s >= 0 { fields.speed = .number(s) }
            if let h = coords?["heading"]?.doubleValue, h >= 0 { fields.course = .number(h) }
            fields.timestamp = raw(item["timestamp"])
            do throws(FieldProblem) {
                return .success(try fields.makeFix(jsonRules, defaultDevice: nil))
            } catch {
                return .failure(error.ingestError(source: source, line: nil, offset: nil))
            }
        }
    }
}
