import Foundation
import PackagePlugin

/// Writes `BuildVersion+Generated.swift` before every build (Tools/build-version.sh): the version from `VERSION`
/// and the commit, or `GEOTRIGGER_VERSION` when the build's environment sets it (Tools/package.sh does).
@main
struct BuildVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let script = context.package.directoryURL.appendingPathComponent("Tools/build-version.sh")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("generated")
        var environment: [String: String] = [:]
        if let version = ProcessInfo.processInfo.environment["GEOTRIGGER_VERSION"] { environment["GEOTRIGGER_VERSION"] = version }
        return [.prebuildCommand(
            displayName: "Writing the build's version",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: [script.path, context.package.directoryURL.path, output.path],
            environment: environment,
            outputFilesDirectory: output)]
    }
}
