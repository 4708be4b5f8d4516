import Foundation
import Server
import Testing
import TestSupport

/// `geotrigger serve --help` shows every setting with its environment variable and default.
@Suite struct ServeHelpTests {
    @Test func helpListsEverySettingItsVariableAndDefault() throws {
        let (status, help) = try BuiltBinary.output(["serve", "--help"])
        #expect(status == 0)
        // The help wraps long rows: compare with every run of white space as one space.
        let flat = help.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for setting in ServeSettings.all {
            let row = "\(setting.key) \(setting.environmentVariable) \(setting.defaultValue ?? "none") "
            #expect(flat.contains(row), "no table row '\(row)'")
            if let flag = setting.flag { #expect(help.contains("--\(flag) <"), "no option --\(flag)") }
        }
        #expect(help.contains("--config <config>"))
    }
}
