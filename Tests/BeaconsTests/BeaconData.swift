#if canImport(Glibc)
import JSON
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TriggerEngine

/// The shared test data (`<package root>/../shared/data`, or `$GEOTRIGGER_SHARED_DATA`), read in place, never copied.
/// Tests that need it are marked `.enabled(if: BeaconData.isAvailable, "needs ../shared/data")`, so without it they
/// show up as skipped with that reason rather than silently passing.
enum BeaconData {
    static let root: String = {
        if let env = getenv("GEOTRIGGER_SHARED_DATA"), env.pointee != 0 { return String(cString: env) }
        // #filePath is <package root>/Tests/BeaconsTests/BeaconData.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/data"
    }()

    static let isAvailable: Bool =
        ["beacons/beacon-vectors.json", "btsnoop/capture.btsnoop", "btsnoop/capture-decoded.json"].allSatisfy {
            access(root + "/" + $0, R_OK) == 0
        }

    static func path(_ relative: String) -> String { root + "/" + relative }

    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        guard let f = fopen(path(relative), "rb") else { throw ReadError(description: "cannot open \(path(relative))") }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    static func json(_ relative: String) throws -> JSONValue { try JSONParser.parse(try bytes(relative)) }

    /// beacon-vectors.json's vectors, in file order (the index is how tests name them).
    static func vectors() throws -> [Vector] {
        let doc = try json("beacons/beacon-vectors.json")
        return (doc["vectors"]?.arrayValue ?? []).enumerated().map { Vector(index: $0.offset, json: $0.element) }
    }

    struct Vector: CustomStringConvertible {
        var index: Int
        var json: JSONValue
        var kind: String { json["kind"]?.stringValue ?? "" }
        var bytes: [UInt8] { hexBytes(json["hex"]?.stringValue ?? "") ?? [] }
        var expect: JSONValue { json["expect"] ?? .null }
        /// nil for "no beacon".
        var frameType: String? { expect["frameType"]?.stringValue }
        var description: String { "vector \(index) (\(json["source"]?.stringValue ?? "?"))" }
    }
}

/// Bytes from hex in a test literal (traps on a typo in the test itself, not on data under test).
func hex(_ s: String) -> [UInt8] {
    guard let b = hexBytes(s) else { fatalError("bad hex literal in test: \(s)") }
    return b
}

