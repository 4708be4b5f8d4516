import JSON
import Foundation
import TriggerEngine

/// Reads a region file (JSON requests or a GeoJSON FeatureCollection) with errors that name the file.
enum RegionFileLoader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func load(_ path: String) throws -> [NotificationRequest] {
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
            return try RequestDecoder().decodeRegionFile(json)
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }
}
