import SystemErrors
import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `geotrigger serve …` runs the `geotrigger-serve` executable beside this one with the same arguments, in this
/// process (exec: same PID, signals and exit status), so the CLI that replays traces does not carry the service's
/// HTTP server, TLS, HTTP client and SQLite. Listed here so `geotrigger --help` shows it.
struct ServeLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Runs the HTTP service: requests, fixes and sightings in, fired notifications out through a durable outbox.",
        discussion: "`geotrigger serve --help` lists its options (the geotrigger-serve executable).")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try Self.exec(arguments) }

    static let executable = "geotrigger-serve"

    /// Replaces this process with `geotrigger-serve ARGUMENTS`; returns only by throwing when it cannot.
    static func exec(_ arguments: [String]) throws -> Never {
        let path = siblingPath()
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = SystemError.text()
        var message = "geotrigger: cannot run \(path): \(reason)\n"
        if errno == ENOENT {
            message += "`serve` is the \(executable) executable, built beside geotrigger: swift build --product \(executable)"
                + " (-c release for production; Tools/test.sh builds it too)\n"
        }
        _ = message.withCString { write(2, $0, strlen($0)) }
        throw ExitCode(2)
    }

    /// The executable in the same directory as this one (where SwiftPM builds both, and where they are installed).
    static func siblingPath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let me = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        guard let slash = me.lastIndex(of: "/") else { return executable }
        return String(me[..<slash]) + "/" + executable
    }
}
