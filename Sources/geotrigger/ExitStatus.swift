import ArgumentParser
import Foundation

/// The exit statuses of `replay` and `convert`, one meaning each.
enum ExitStatus: Int32 {
    /// Everything given was read (bad records may have been skipped and reported).
    case success = 0
    /// `replay --expect`: the notifications differ from the golden file.
    case expectationNotMet = 1
    /// Unusable regions, a bad record or file with `--strict`, no fix read from any trace, or a file the command
    /// must read or write that it cannot (`--expect`, `-o`, `--report`, `--write-expect`: checked before any work).
    case unusableInput = 2
    /// The command ran to the end but skipped one or more trace files it could not open or recognise.
    case filesSkipped = 3
    /// An option or argument that cannot be used (ArgumentParser's own status for usage errors).
    case usage = 64

    var code: ExitCode { ExitCode(rawValue) }

    /// For `--help`; `convert` has no regions and no expectation.
    static func help(replay: Bool) -> String {
        "Exit status: 0 success; " + (replay ? "1 the notifications differ from --expect; 2 unusable regions, " : "2 ")
            + "a bad record or file with --strict, no fix read from any trace, or "
            + (replay ? "an --expect file that cannot be read or an output (-o, --report, --write-expect) "
                      : "an output (-o) ")
            + "that cannot be written (checked before the work starts); 3 one or more trace files were "
            + "skipped (unreadable, or the format could not be told) and the rest were read; 64 a usage error. "
            + (replay ? "1 and 2 take precedence over 3." : "2 takes precedence over 3.")
            + " Errors are written as `geotrigger: …` on standard error."
    }

    /// Says `message` on standard error in the one form every error of `geotrigger` takes, and the status to exit with.
    static func fail(_ message: String, _ status: ExitStatus = .unusableInput) -> ExitCode {
        FileHandle.standardError.write(Data("geotrigger: \(message)\n".utf8))
        return status.code
    }
}
