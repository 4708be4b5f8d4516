import Foundation
import Server
import Testing
import TestSupport

/// `geotrigger serve --help` shows every setting with its environment variable and default.
@Suite struct ServeHelpTests {
    @Test func helpAllListsEverySettingItsVariableAndDefault() throws {
        let (status, help) = try BuiltBinary.output(["serve", "--help-all"])
        #expect(status == 0)
        // The help wraps long rows: compare with every run of white space as one space.
        let flat = help.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") + " "
        for setting in ServeSettings.all {
            let row = "\(setting.key) \(setting.environmentVariable) \(setting.defaultValue ?? "none") "
            #expect(flat.contains(row), "no table row '\(row)'")
            if let flag = setting.flag { #expect(help.contains("--\(flag) <"), "no option --\(flag)") }
        }
        #expect(help.contains("--config <config>"))
    }

    /// `--help` is the common options on about a screen; `--help-all` has the rest.
    @Test func helpShowsTheCommonOptionsOnAboutAScreen() throws {
        let (status, help) = try BuiltBinary.output(["serve", "--help"])
        #expect(status == 0)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 80, "\(lines) lines")
        for flag in ["--config", "--database", "--regions", "--listen", "--sink", "--input", "--bluetooth", "--log-format", "--help-all", "--version"] {
            #expect(help.contains(flag), "no \(flag)")
        }
        #expect(!help.contains("--webhook-batch") && !help.contains("--recover"))
        let (_, all) = try BuiltBinary.output(["serve", "--help-all"])
        #expect(all.contains("--webhook-batch <") && all.contains("--recover"))
    }
}
