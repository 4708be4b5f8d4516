import Foundation
import JSON
import NATS
import TestSupport

/// A real 3-node JetStream cluster on loopback: Debian's nats-server, each node with its own config and store
/// directory and ports the kernel said were free. Nodes can be killed (SIGKILL) and restarted on the same store.
final class NATSCluster: @unchecked Sendable {
    struct Node {
        let name: String
        let clientPort: Int
        let routePort: Int
        /// nats-server's monitoring endpoint (`/jsz` names the meta leader).
        let monitorPort: Int
        let config: URL
        var process: Process?
    }

    let directory: URL
    private(set) var nodes: [Node] = []

    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nats-server") }

    var servers: [String] { nodes.map { "nats://127.0.0.1:\($0.clientPort)" } }
    var journal: String { "nats://" + nodes.map { "127.0.0.1:\($0.clientPort)" }.joined(separator: ",") }

    init(size: Int = 3, extraConfig: String = "") throws {
        directory = try TestFolders.make("gt-nats")
        let ports = try (0..<size).map { _ in (try LoopbackPort.free(), try LoopbackPort.free(), try LoopbackPort.free()) }
        for (k, (client, route, monitor)) in ports.enumerated() {
            let name = "n\(k + 1)"
            let routes = ports.enumerated().filter { $0.offset != k }.map { "nats-route://127.0.0.1:\($0.element.1)" }
            let store = directory.appendingPathComponent(name)
            let text = """
            server_name: \(name)
            listen: 127.0.0.1:\(client)
            http: 127.0.0.1:\(monitor)
            jetstream { store_dir: "\(store.path)" }
            \(size > 1 ? "cluster { name: geotrigger-test\n  listen: 127.0.0.1:\(route)\n  routes: [\(routes.joined(separator: ", "))] }" : "")
            \(extraConfig)
            """
            let config = directory.appendingPathComponent("\(name).conf")
            try text.write(to: config, atomically: true, encoding: .utf8)
            nodes.append(Node(name: name, clientPort: client, routePort: route, monitorPort: monitor, config: config))
        }
        for k in nodes.indices { try start(k) }
        try waitForJetStream()
    }

    deinit {
        for n in nodes { n.process.map { kill($0.processIdentifier, SIGKILL); $0.waitUntilEnded() } }
        try? FileManager.default.removeItem(at: directory)
    }

    func start(_ k: Int) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/nats-server")
        p.arguments = ["-c", nodes[k].config.path]
        let log = directory.appendingPathComponent("\(nodes[k].name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        nodes[k].process = p
    }

    func kill9(_ k: Int) {
        guard let p = nodes[k].process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilEnded()
        nodes[k].process = nil
    }

    func index(named name: String) -> Int? { nodes.firstIndex { $0.name == name } }

    /// The node leading the JetStream meta group (stream and consumer placement), as a running node's `/jsz`
    /// says; nil while none knows one.
    func metaLeader() -> String? {
        for n in nodes where n.process != nil {
            guard let answer = try? LoopbackHTTP.exchange(port: n.monitorPort, method: "GET", path: "/jsz"), answer.status == 200,
                  let leader = (try? JSONParser.parse(answer.body))?["meta_cluster"]?["leader"]?.stringValue, !leader.isEmpty else { continue }
            return leader
        }
        return nil
    }

    /// Waits until a replicated stream can be created: the cluster has met and elected its meta leader.
    func waitForJetStream(timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        var last: (any Error)?
        while ContinuousClock.now < deadline {
            do {
                let c = try NATSConnection(servers: servers, name: "test probe")
                try c.ensureStream(StreamSettings(name: "PROBE", subjects: ["probe"], replicas: nodes.count))
                _ = try c.publish(subject: "probe", data: [1])
                return
            } catch {
                last = error
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        throw NATSError.testTimeout("JetStream cluster not ready within \(timeout): \(last.map { "\($0)" } ?? "")")
    }

    func log(_ k: Int) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("\(nodes[k].name).log"), encoding: .utf8)) ?? ""
    }
}

struct ClusterTestFailure: Error, CustomStringConvertible { var description: String }

extension NATSError {
    static func testTimeout(_ s: String) -> ClusterTestFailure { ClusterTestFailure(description: s) }
}
