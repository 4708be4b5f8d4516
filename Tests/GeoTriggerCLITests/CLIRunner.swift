import Foundation
import TestSupport

/// Runs the `geotrigger` executable built next to the test bundle and captures what it prints, awaiting its exit
/// without blocking a thread of the concurrency pool.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var executable: URL { BuiltBinary.geotrigger }

    static func run(_ arguments: [String], stdin: String? = nil) async throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = packageRoot
        // Output goes to files: no pipe can fill up and block the child, whatever it prints.
        let outURL = TestFolders.path("gt-out"), errURL = TestFolders.path("gt-err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin.data(using: .utf8)!) }
        try input.fileHandleForWriting.close()
        await p.exited()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/GeoTriggerCLITests/Fixtures/\(name)").path
    }

    static var sharedData: URL {
        if let env = ProcessInfo.processInfo.environment["GEOTRIGGER_SHARED_DATA"] { return URL(fileURLWithPath: env) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    }
    /// Headless Chromium, for the HTML report test.
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var sharedDataAvailable: Bool { FileManager.default.fileExists(atPath: sharedData.path) }
}
