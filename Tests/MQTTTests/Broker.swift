import Foundation
import MQTT
import Synchronization
import Testing
import TestSupport

/// A real mosquitto broker on a free loopback port, with its own config in a temp directory; stopped (and the
/// directory removed) when released, so a failing test never leaves it running.
final class Broker: @unchecked Sendable {  // `pid` is guarded by `lock`
    /// Debian installs the broker in /usr/sbin, which is not on every PATH.
    static let executable: String? = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let skipReason: Comment = "mosquitto is not installed (Tools/setup.sh --tests installs it)"
    static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let passwd: String? = ["/usr/bin/mosquitto_passwd", "/usr/local/bin/mosquitto_passwd"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let directory: URL
    let port: Int
    private let config: String
    private let lock = NSLock()
    private var pid: pid_t?

    /// `listener` settings (TLS files…) and broker-wide settings (password_file…) are appended to the config.
    init(listenerSettings: String = "", settings: String = "allow_anonymous true") throws {
        directory = try TestFolders.make("geotrigger-mqtt")
        port = try LoopbackPort.free()
        config = """
            # Root would otherwise switch to the mosquitto user, who cannot read this directory.
            user root
            persistence false
            # A slow subscriber must not lose messages, but not 0 ("no maximum"): mosquitto 2.0.11 then drops an MQTT 5
            # client whose message it refused (fixed in 2.0.15, commit a146c218 "unlimited message quota").
            max_queued_messages 1000000
            log_dest file \(directory.path)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            listener \(port) 127.0.0.1
            \(listenerSettings)
            \(settings)

            """
        try config.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }

    func start() throws {
        let pid = try Self.spawn(Self.executable!, ["-c", directory.appendingPathComponent("mosquitto.conf").path])
        lock.withLock { self.pid = pid }
        // Listening once a TCP connection succeeds.
        var exited = false
        let listening = eventuallyBlocking {
            if Self.canConnect(port: port) { return true }
            var status: Int32 = 0
            exited = waitpid(pid, &status, WNOHANG) != 0
            return exited
        }
        if listening, !exited { return }
        if exited { lock.withLock { self.pid = nil } }
        stop()
        throw BrokerError(reason: "mosquitto did not start on port \(port): \(log)")
    }

    /// Starts the broker with an empty signal mask and default signal handling. Foundation's `Process` hands the
    /// child the test process's mask, and once a dispatch signal source exists (servers under test install them)
    /// SIGTERM is blocked there: mosquitto would never see `stop()`'s SIGTERM.
    static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw BrokerError(reason: "cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// SIGTERM (mosquitto saves its persistent sessions) and wait, SIGKILL after 10 s; idempotent.
    func stop() {
        guard let pid = lock.withLock({ () -> pid_t? in defer { self.pid = nil }; return self.pid }) else { return }
        kill(pid, SIGCONT)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        // A grace period, then escalation: not a bound on mosquitto.
        if eventuallyBlocking(timeout: .seconds(10), { waitpid(pid, &status, WNOHANG) != 0 }) { return }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// SIGSTOP: the broker keeps its sockets but answers nothing.
    func pause() { lock.withLock { if let pid { kill(pid, SIGSTOP) } } }
    func resume() { lock.withLock { if let pid { kill(pid, SIGCONT) } } }

    func options(_ change: (inout MQTTClient.Options) -> Void = { _ in }) -> MQTTClient.Options {
        var o = MQTTClient.Options(host: "127.0.0.1", port: port, reconnectDelayMinimum: .milliseconds(50),
                                   reconnectDelayMaximum: .milliseconds(500), publishTimeout: .seconds(10))
        change(&o)
        return o
    }


    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs a tool to completion; throws with its output when it fails.
    static func run(_ tool: String, _ arguments: [String], in directory: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.currentDirectoryURL = directory
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw BrokerError(reason: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self))")
        }
    }
}

struct BrokerError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Collects what a subscribed client receives.
final class Received: Sendable {
    private final class Store: Sendable {
        let messages = Mutex<[MQTTMessage]>([])
    }
    private let store = Store()
    private let task: Task<Void, Never>

    init(_ client: MQTTClient) {
        let store = store
        task = Task { for await m in client.messages { store.messages.withLock { $0.append(m) } } }
    }

    deinit { task.cancel() }

    var all: [MQTTMessage] { store.messages.withLock { $0 } }

    /// Waits until at least `count` messages arrived or the timeout passed; returns what arrived.
    func wait(count: Int, timeout: Duration = .seconds(600)) async -> [MQTTMessage] {
        _ = await eventually(timeout: timeout) { self.all.count >= count }
        return all
    }
}
