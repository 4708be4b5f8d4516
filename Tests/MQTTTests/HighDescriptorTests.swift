import Foundation
import MQTT
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A service holding many connections gets sockets numbered 1024 and up, which `select` (inside libmosquitto's
/// `mosquitto_loop`) cannot watch: every pass failed with "Invalid function arguments" and the client never
/// connected. With the descriptors below 1024 taken, clients must still publish, subscribe, receive and be refused
/// with the broker's reason.
@Suite(.serialized) struct HighDescriptorTests {
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
