import ArgumentParser

/// The exit statuses of `replay` and `convert`, one meaning each.
enum ExitStatus: Int32 {
    /// Everything given was read (bad records may have been skipped and reported).
    case success = 0
    /// `replay --expect`: the notifications differ from the golden file.
    case expectationNotMet = 1
    /// Unusable regions, a bad record or file with `--strict`, or no fix read from any trace.
    case unusableInput = 2
    /// The command ran to the end but skipped one or more trace files it could not open or recognise.
    case filesSkipped = 3

    var code: ExitCode { ExitCode(rawValue) }

    /// For `--help`; `convert` has no regions and no expectation.
    static func help(replay: Bool) -> String {
        "Exit status: 0 success; " + (replay ? "1 the notifications differ from --expect; 2 unusable regions, " : "2 ")
            + "a bad record or file with --strict, or no fix read from any trace; 3 one or more trace files were "
            + "skipped (unreadable, or the format could not be told) and the rest were read. "
            + (replay ? "1 and 2 take precedence over 3." : "2 takes precedence over 3.")
    }
}
