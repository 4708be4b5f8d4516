import Cluster
import Foundation
import TestSupport

/// librdkafka's mock Kafka cluster in a process of its own (`geotrigger-kafka-mock`, built beside `geotrigger`), so
/// that separate `geotrigger serve` processes share it; its topics are made for a deployment up front (the mock's
/// admin API does not create topics). Killed when this object goes.
final class KafkaMock: @unchecked Sendable {
    let bootstrapServers: String
    let directory: URL
    private let process: Process

    static var executable: URL { BuiltBinary.geotrigger.deletingLastPathComponent().appendingPathComponent("geotrigger-kafka-mock") }
    static var available: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    var journal: String { "kafka://\(bootstrapServers)" }

    init(names: ClusterNames, partitions: Int) throws {
        directory = try TestFolders.make("gt-kafka")
        let p = Process()
        p.executableURL = Self.executable
        p.arguments = names.kafkaTopics(partitions: partitions, replicationFactor: 1).flatMap { ["--topic", "\($0.name):\($0.partitions)"] }
        let out = Pipe()
        p.standardOutput = out
        let log = directory.appendingPathComponent("mock.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: log)
        try p.run()
        process = p
        // The first line, once the brokers listen.
        var line: [UInt8] = []
        while let byte = try out.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("bootstrap ") else {
            kill(p.processIdentifier, SIGKILL)
            throw ClusterTestFailure(description: "geotrigger-kafka-mock said '\(text)'")
        }
        bootstrapServers = String(text.dropFirst("bootstrap ".count))
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
