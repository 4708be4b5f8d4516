import Foundation

/// A small file's bytes (configuration, token); the error says why it could not be read.
func readFile(_ path: String) throws -> [UInt8] {
    guard FileManager.default.fileExists(atPath: path) else { throw FileContentsError(reason: "\(path) does not exist") }
    do {
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
        throw FileContentsError(reason: "\(path) cannot be read: \(error.localizedDescription)")
    }
}

struct FileContentsError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
