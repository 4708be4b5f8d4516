import ArgumentParser
import Foundation
import BuildVersion

@main
struct GeoTrigger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotrigger",
        abstract: "Evaluates geofence and Bluetooth-beacon triggers and emits the notification requests they fire.",
        discussion: """
            Register notification requests with location triggers (circles, polygons, beacon regions), feed location \
            fixes and beacon sightings, get SPEC §4 notification requests as NDJSON.
            """,
        version: BuildVersion.string,
        subcommands: [ReplayCommand.self, ConvertCommand.self, ScanCommand.self, ServeLauncher.self, TokenLauncher.self, JournalCommand.self])

    /// `serve` and `token` (and `help serve`, `help token`) go straight to the service's executable, options and
    /// `--help` included.
    static func main() async {
        // The huge-page restart is ReplayCommand's, and only for a large region set: it costs a third of a short
        // run's start (an exec), and `serve` restarts in its own executable.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "serve" {
            do { try ServeLauncher.exec(Array(arguments.dropFirst())) } catch { exit(withError: error) }
        }
        if arguments.first == "token" {
            do { try ServeLauncher.exec(arguments) } catch { exit(withError: error) }
        }
        if arguments.count >= 2, arguments[0] == "help", arguments[1] == "serve" {
            do { try ServeLauncher.exec(["--help"]) } catch { exit(withError: error) }
        }
        if arguments.count >= 2, arguments[0] == "help", arguments[1] == "token" {
            do { try ServeLauncher.exec(["token", "--help"]) } catch { exit(withError: error) }
        }
        await runReportingErrors(arguments)
    }

    /// ArgumentParser's `main`, with its errors in the one form of this CLI: `geotrigger: MESSAGE` (its own `Error: `
    /// prefix replaced), usage errors exit 64, and any other failure 2, never 1 (which means "differs from --expect").
    static func runReportingErrors(_ arguments: [String]) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
            Foundation.exit(0)
        } catch let code as ExitCode {
            // The command has said why already.
            Foundation.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            // Help and --version are printed as ArgumentParser prints them.
            if status == .success { exit(withError: error) }
            var message = fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            FileHandle.standardError.write(Data("geotrigger: \(message)\n".utf8))
            Foundation.exit(status == .validationFailure ? ExitStatus.usage.rawValue : ExitStatus.unusableInput.rawValue)
        }
    }
}
