import ArgumentParser
import Foundation

/// ArgumentParser's `main` with its errors in the form the rest of the command uses, `geotrigger serve: MESSAGE` or
/// `geotrigger token: MESSAGE` (its own `Error: ` prefix replaced, as `geotrigger` does); exit statuses unchanged.
enum CommandErrors {
    static func run<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String], prefix: String) async -> Never {
        do {
            var command = try Command.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
            Foundation.exit(0)
        } catch let code as ExitCode {
            // The command has said why already.
            Foundation.exit(code.rawValue)
        } catch {
            let status = Command.exitCode(for: error)
            // Help and --version are printed as ArgumentParser prints them.
            if status == .success { Command.exit(withError: error) }
            var message = Command.fullMessage(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            FileHandle.standardError.write(Data("\(prefix): \(message)\n".utf8))
            Foundation.exit(status.rawValue)
        }
    }
}
