import Foundation
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// `--input`: NDJSON fixes and sightings from standard input and from a TCP connection reach the engine and the
/// sink; bad lines are logged with their line number and counted.
@Suite struct InputTests {
    static let beaconRequest = """
        {"content": {"title": "{device} {event} {region.id}"},
         "trigger": {"repeats": true, "initialTrigger": true, "region": {"type": "beacon", "id": "desk", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2}}}
        """

    static func sightingLine(_ second: Int) -> String {
        #"{"device": "gw", "timestamp": \#(1_760_000_000 + second), "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "rssi": -60, "txPower": -59}"#
    }

    func start(_ directory: URL, _ input: String, stdin: Pipe? = nil) async throws -> (ServeProcess, sink: String) {
        let sink = directory.appendingPathComponent("out.ndjson").path
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--sink", "ndjson:\(sink)", "--clock", "event", "--input", input],
                                      directory: directory, stdin: stdin)
        try await server.waitUntilListening()
        return (server, sink)
    }

    static func lines(_ path: String, atLeast count: Int) async throws -> [String] {
        func read() -> [String] { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        _ = await eventually(every: .milliseconds(50)) { read().count >= count }
        return read()
    }

    @Test func fixesFromStandardInput() async throws {
        let directory = try TestServer().directory
        let pipe = Pipe()
        let (server, sink) = try await start(directory, "stdin", stdin: pipe)
        _ = try await server.put("/v1/requests/alex", requestJSON())
        let text = [fixLine("p", 0, inside: false), fixLine("p", 10, inside: true), "{oops", fixLine("p", 20, inside: false)]
            .joined(separator: "\n") + "\n"
        pipe.fileHandleForWriting.write(text.data(using: .utf8)!)
        let lines = try await Self.lines(sink, atLeast: 2)
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""deliveryId":"alex/p/1-1760000010""#) == true)
        #expect(lines.last?.contains(#""event":"exit""#) == true)
        // The bad line: logged with its number, counted by kind.
        #expect(server.log.contains("line=3"))
        let metrics = try await ServeProcess.send(.get, "/metrics", "", port: server.port)
        #expect(String(buffer: metrics.body ?? ByteBuffer()).contains("geotrigger_rejections_total{reason=\"malformed-json\"} 1"))
        // End of input leaves the server running.
        try pipe.fileHandleForWriting.close()
        // Bounded wait, not a fixed one: under a loaded machine the server may take seconds to log it.
        #expect(await eventually { server.log.contains("input ended") }, "\(server.log)")
        #expect(server.process.isRunning)
        await server.stop()
        #expect(server.process.terminationStatus == 0, "\(server.log)")
    }

    @Test func sightingsFromStandardInput() async throws {
        let directory = try TestServer().directory
        let pipe = Pipe()
        let (server, sink) = try await start(directory, "sightings:stdin", stdin: pipe)
        let put = try await server.put("/v1/requests/desk", Self.beaconRequest)
        #expect(put.status == .created)
        pipe.fileHandleForWriting.write(((0..<3).map { Self.sightingLine($0) }.joined(separator: "\n") + "\n").data(using: .utf8)!)
        let lines = try await Self.lines(sink, atLeast: 1)
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""title":"gw entry desk""#) == true)
        try pipe.fileHandleForWriting.close()
        await server.stop()
        #expect(server.process.terminationStatus == 0, "\(server.log)")
    }

    @Test func fixesFromATCPConnection() async throws {
        let directory = try TestServer().directory
        let (server, sink) = try await start(directory, "tcp:127.0.0.1:0")
        let inputPort = try await server.waitForPort(message: "input listening")
        _ = try await server.put("/v1/requests/alex", requestJSON())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: inputPort).get()
        let text = [fixLine("t", 0, inside: false), "", fixLine("t", 10, inside: true), #"{"device": "t", "timestamp": 1760000020, "latitude": 91, "longitude": 0}"#]
            .joined(separator: "\n") + "\n"
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        let lines = try await Self.lines(sink, atLeast: 1)
        try await channel.close().get()
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""deliveryId":"alex/t/1-1760000010""#) == true)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.log.contains("line=4"))
        #expect(server.log.contains("field=latitude"))
        await server.stop()
        #expect(server.process.terminationStatus == 0, "\(server.log)")
    }

    @Test func aMissingBluetoothAdapterFailsTheStart() async throws {
        let directory = try TestServer().directory
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--bluetooth", "hci42"], directory: directory)
        try #require(try await server.waitForExit(seconds: 600), "still running: \(server.log)")
        #expect(server.process.terminationStatus == 2)
        #expect(server.log.contains("cannot scan with Bluetooth adapter hci42"))
        #expect(server.logLine(message: "listening") == nil)
        // The adapter is opened before anything is created on disk.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("g.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("g.sqlite.journal").path))
    }

    @Test func anUnknownBluetoothBackendFailsTheStart() async throws {
        let directory = try TestServer().directory
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--bluetooth", "hci0", "--backend", "bluez"], directory: directory)
        try #require(try await server.waitForExit(seconds: 600), "still running: \(server.log)")
        #expect(server.process.terminationStatus == 2)
        #expect(server.log.contains("flag --backend: unknown backend 'bluez': use auto, dbus or hci"), "\(server.log)")
        #expect(server.logLine(message: "listening") == nil)
    }
}
