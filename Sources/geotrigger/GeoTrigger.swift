import ArgumentParser

@main
struct GeoTrigger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotrigger",
        abstract: "Evaluates geofence and Bluetooth-beacon triggers and emits the notification requests they fire.",
        discussion: """
            Register notification requests with location triggers (circles, polygons, beacon regions), feed location \
            fixes and beacon sightings, get SPEC §4 notification requests as NDJSON.
            """,
        version: "0.1.0",
        subcommands: [ReplayCommand.self, ConvertCommand.self, ScanCommand.self, ServeCommand.self, JournalCommand.self])
}
