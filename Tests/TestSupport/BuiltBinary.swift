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

extension BuiltBinary {
    /// Runs `geotrigger ARGUMENTS` to its end: its exit status and standard output (standard error discarded).
    public static func output(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        let process = Process()
        process.executableURL = geotrigger
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
