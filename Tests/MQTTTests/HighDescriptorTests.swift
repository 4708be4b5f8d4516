import Foundation
import MQTT
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

private let highDescriptorTestsRunAlone = ProcessInfo.processInfo.environment["GEOTRIGGER_HIGH_DESCRIPTOR_TESTS"] == "1"

/// A service holding many connections gets sockets numbered 1024 and up, which `select` (inside libmosquitto's
/// `mosquitto_loop`) cannot watch: every pass failed with "Invalid function arguments" and the client never
/// connected. With the descriptors below 1024 taken, clients must still publish, subscribe, receive and be refused
/// with the broker's reason.
///
/// These run in a test process of their own (`Tools/test.sh` runs them after the rest, with
/// `GEOTRIGGER_HIGH_DESCRIPTOR_TESTS=1`): Foundation's `Process.run` on Linux lists `/proc/self/fd` and reads past the
/// end of its directory buffer once more than ~1,360 descriptors are open (swift-corelibs-foundation#5472, in Swift
/// 6.3.1), and with 1,100 of them taken here while other suites start servers, the whole test process crashed in
/// two of three runs.
@Suite(.serialized, .enabled(if: highDescriptorTestsRunAlone,
                             "runs in a test process of its own: Tools/test.sh, or GEOTRIGGER_HIGH_DESCRIPTOR_TESTS=1 swift test --filter HighDescriptorTests"))
struct HighDescriptorTests {
    /// Takes descriptors until the next one is at least 1100, runs `body`, then gives them back.
    static func withLowDescriptorsTaken(_ body: () async throws -> Void) async throws {
        var taken: [Int32] = []
        defer { for fd in taken { close(fd) } }
        while true {
            let fd = open("/dev/null", O_RDONLY)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            taken.append(fd)
            if fd >= 1100 { break }
        }
        try await body()
    }

    @Test func publishSubscribeAndReceiveOnHighDescriptors() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_cur >= 1200, "needs a descriptor limit of at least 1,200 (ulimit -n)")
        let broker = try Broker()
        try await Self.withLowDescriptorsTaken {
            let subscriber = try MQTTClient(broker.options())
            let received = Received(subscriber)
            try await subscriber.subscribe("high/#")
            let client = try MQTTClient(broker.options())
            let batch = (0..<500).map { MQTTMessage(topic: "high/\($0 % 7)", payload: Array("m\($0)".utf8)) }
            try await client.publish(batch)
            let got = await received.wait(count: 500)
            #expect(got.count == 500)
            #expect(Set(got.map(\.payload)) == Set(batch.map(\.payload)))
            await client.close()
            await subscriber.close()
        }
    }

    @Test func aRefusalOnAHighDescriptorIsTheBrokersReason() async throws {
        let broker = try AuthenticationTests.passwordBroker()
        try await Self.withLowDescriptorsTaken {
            let client = try MQTTClient(broker.options { $0.username = "sink"; $0.password = "wrong" })
            let error = await #expect(throws: MQTTError.self) { try await client.publish(topic: "auth/no", payload: [1]) }
            guard case .connectionRefused(let reason)? = error else {
                Issue.record("expected .connectionRefused, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("CONNACK"), "reason: \(reason)")
            await client.close()
        }
    }
}
