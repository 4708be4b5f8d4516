import Foundation

/// Temporary folders for tests, all inside one folder per test process that is removed when the process exits:
/// suites that make a folder per test (hundreds per run) leave nothing behind in /tmp, whether or not each test
/// cleans up after itself.
public enum TestFolders {
    private static let root: URL = {
        let root = rootPath()
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestFolders.rootPath()) }
        return root
    }()

    private static func rootPath() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("geotrigger-tests-\(getpid())")
    }

    /// A new, empty folder named `prefix-UUID` inside the process's folder.
    public static func make(_ prefix: String) throws -> URL {
        let folder = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A new path named `prefix-UUID` + `suffix` inside the process's folder, not created: for a file, or a folder
    /// the code under test makes itself.
    public static func path(_ prefix: String, suffix: String = "") -> URL {
        root.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
    }
}
