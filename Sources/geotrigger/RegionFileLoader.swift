import JSON
import Foundation
import Ingest
import TriggerEngine

/// Reads a region file (JSON requests or GeoJSON) with errors that name the file.
enum RegionFileLoader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The requests, and the GeoJSON defaults their features took (`GeoJSONConversion.defaultsApplied`).
    static func load(_ path: String, geoJSON: GeoJSONOptions = GeoJSONOptions()) throws
        -> (requests: [NotificationRequest], defaultsApplied: [String], groups: [String: [String]]) {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path) } catch {
            throw Failure(description: "\(path): cannot read the region file: \(error)")
        }
        let decoder = RequestDecoder()
        // SPEC §1 JSON, the common file, is read without the value tree; anything else (GeoJSON, an error) through it.
        if let requests = decoder.decodeRequests(bytes: bytes) { return (requests, [], [:]) }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            if let other = notARegionFile(bytes, path) { throw Failure(description: "\(path): \(other)") }
            throw Failure(description: "\(path): not valid JSON \(error)")
        }
        do {
            // `{"groups": …, "requests": […]}`: device groups for proximity requests beside the requests.
            if json.objectValue != nil, json["type"] == nil, json["groups"] != nil || json["requests"] != nil {
                let file = try decoder.decodeRequestFile(json)
                return (file.requests, [], file.groups)
            }
            let converted = try decoder.convertGeoJSON(json, options: geoJSON)
            return (try decoder.requests(of: converted), converted.defaultsApplied, [:])
        } catch {
            throw Failure(description: "\(path): \(error)")
        }
    }

    /// What a file that does not parse as JSON looks like when it is something else, most often a trace given where
    /// the regions go (`replay trace.gpx regions.json`); nil when it looks like (broken) JSON.
    static func notARegionFile(_ bytes: [UInt8], _ path: String) -> String? {
        let prefix = Array(bytes.prefix(TraceFileReader.detectionPrefix))
        let expected = "a region file is JSON requests or a GeoJSON FeatureCollection, and comes first: "
            + "geotrigger replay REGIONS TRACE…"
        if let binary = TraceFormat.binaryEvidence(prefix), binary.what == "a NUL byte" {
            return "a binary file (a NUL byte at byte \(binary.offset)), not regions; " + expected
        }
        let name = String(path.split(separator: "/").last ?? Substring(path))
        switch TraceFormat.detect(prefix: prefix, fileName: name) {
        case .gpx?: return "this looks like a GPX trace, not regions; " + expected
        case .nmea?: return "this looks like an NMEA trace, not regions; " + expected
        case .csv?: return "this looks like a CSV trace, not regions; " + expected
        case let format? where bytes.split(separator: 10).count > 1
            && (try? JSONParser.parse(Array(bytes.split(separator: 10)[0])))?.objectValue != nil:
            // Several JSON values, one per line (a broken pretty-printed file's first line is not a whole object).
            return "this looks like \(format == .ndjson ? "NDJSON" : format.rawValue) fixes, one JSON object per line, "
                + "not regions; " + expected
        default: return nil
        }
    }

    /// The stderr line that tells a GeoJSON user which fields the loader chose for them; nil when none.
    static func defaultsNote(_ path: String, _ defaults: [String]) -> String? {
        guard !defaults.isEmpty else { return nil }
        return "geotrigger: \(path): GeoJSON defaults applied where features leave them out: \(defaults.joined(separator: ", ")) (docs/semantics.md, \"GeoJSON features\")\n"
    }
}
