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
        let (status, text) = try run(arguments, reading: .output)
        return (status, text)
    }

    public enum Stream: Sendable { case output, error }

    /// Runs `geotrigger ARGUMENTS` to its end, with `environment` (nil: this process's), and returns its exit status
    /// and the text of one of its streams (the other discarded).
    public static func run(_ arguments: [String], environment: [String: String]? = nil, reading stream: Stream) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = geotrigger
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = stream == .output ? pipe : FileHandle.nullDevice
        process.standardError = stream == .error ? pipe : FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
