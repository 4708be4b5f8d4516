import Foundation
import Server
import Testing

/// `geotrigger serve --help` shows every setting with its environment variable and default.
@Suite struct ServeHelpTests {
    @Test func helpListsEverySettingItsVariableAndDefault() throws {
        let process = Process()
        process.executableURL = ServeProcess.executable
        process.arguments = ["serve", "--help"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let help = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
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
