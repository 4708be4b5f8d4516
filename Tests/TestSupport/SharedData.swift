import Foundation

/// The project's shared real-world test data, read in place: `$GEOTRIGGER_SHARED_DATA`, else `<package root>/../shared/data`.
/// Tests that need it are marked `.enabled(if: SharedData.isAvailable, "needs ../shared/data")`, so a checkout without
/// it reports them as skipped rather than passing silently.
public enum SharedData {
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["GEOTRIGGER_SHARED_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env, isDirectory: true)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }()

    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path)
    }

    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    public static func bytes(_ relative: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url(relative))) }
}
