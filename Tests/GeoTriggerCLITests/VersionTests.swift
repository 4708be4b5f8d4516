import Foundation
import Testing
import TestSupport

/// `geotrigger --version` and `geotrigger serve --version` print one version, the one the build was made as: the
/// package's when GEOTRIGGER_VERSION was set (Tools/package.sh), otherwise VERSION's number, `-dev` and the commit.
@Suite struct VersionTests {
    @Test func bothExecutablesPrintTheBuildsVersion() throws {
        let (status, cli) = try BuiltBinary.output(["--version"])
        #expect(status == 0)
        let (serveStatus, serve) = try BuiltBinary.output(["serve", "--version"])
        #expect(serveStatus == 0)
        #expect(serve == cli)
        let version = cli.trimmingCharacters(in: .whitespacesAndNewlines)
        let number = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if let packaged = ProcessInfo.processInfo.environment["GEOTRIGGER_VERSION"] {
            #expect(version == packaged)
        } else {
            #expect(version.hasPrefix("\(number)-dev ("), "\(version)")
            // The commit: ten hex digits (or git's absence said in words).
            let commit = version.dropFirst("\(number)-dev (".count).prefix(10)
            #expect(commit.allSatisfy(\.isHexDigit) || version.contains("no git commit"), "\(version)")
        }
    }
}
