import JSON
import Foundation
import TriggerEngine

/// Reads a region file (JSON requests or GeoJSON) with errors that name the file.
enum RegionFileLoader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The requests, and the GeoJSON defaults their features took (`GeoJSONConversion.defaultsApplied`).
    static func load(_ path: String, geoJSON: GeoJSONOptions = GeoJSONOptions()) throws -> (requests: [NotificationRequest], defaultsApplied: [String]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "\(path): cannot read the region file")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse([UInt8](data))
        } catch {
            throw Failure(description: "\(path): not valid JSON \(error)")
        }
        do {
            let decoder = RequestDecoder()
            let converted = try decoder.convertGeoJSON(json, options: geoJSON)
            return (try decoder.requests(of: converted), converted.defaultsApplied)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }

    /// The stderr line that tells a GeoJSON user which fields the loader chose for them; nil when none.
    static func defaultsNote(_ path: String, _ defaults: [String]) -> String? {
        guard !defaults.isEmpty else { return nil }
        return "geotrigger: \(path): GeoJSON defaults applied where features leave them out: \(defaults.joined(separator: ", ")) (docs/semantics.md, \"GeoJSON features\")\n"
    }
}
