import ArgumentParser

/// `geotrigger token …` runs `geotrigger-serve token …` (exec, as `serve` does): the credentials live in the SQLite
/// file, and this executable carries no SQLite. Listed here so `geotrigger --help` shows it.
struct TokenLauncher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Creates, lists and revokes the API's credentials (scopes admin, ingest, read, device) in the database.",
        discussion: "`geotrigger token --help` lists its subcommands: create, list, revoke.")

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try ServeLauncher.exec(["token"] + arguments) }
}
