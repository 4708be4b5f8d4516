import Foundation

/// The `geotrigger` executable this test run was built with: the test bundle sits in the build folder next to it
/// (or a few levels inside it), else the package's debug build.
public enum BuiltBinary {
    public static var geotrigger: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<5 {
            dir = dir.deletingLastPathComponent()
            let candidate = dir.appendingPathComponent("geotrigger")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/geotrigger")
    }
}
