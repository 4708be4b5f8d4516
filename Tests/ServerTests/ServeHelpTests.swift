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
        for setting in ServeSettings.all {
            let row = help.split(separator: "\n").first { $0.hasPrefix(setting.key + " ") && $0.contains(setting.environmentVariable) }
            #expect(row?.hasSuffix(" " + (setting.defaultValue ?? "none")) == true, "no table row for \(setting.key)")
            if let flag = setting.flag { #expect(help.contains("--\(flag) <"), "no option --\(flag)") }
        }
        #expect(help.contains("--config <config>"))
    }
}
