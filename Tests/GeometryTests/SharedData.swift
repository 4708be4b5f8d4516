import Foundation

/// The team's third-party test data, read in place at `<package>/../shared/data` (or `$GEOTRIGGER_SHARED_DATA`).
enum SharedData {
    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["GEOTRIGGER_SHARED_DATA"] { return URL(fileURLWithPath: env) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/data")
    }()
    static var isAvailable: Bool { FileManager.default.fileExists(atPath: root.path) }
    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }
}
