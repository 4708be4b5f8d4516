@testable import Inputs
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// Reconnection logs say why in the system's words (`gpsd at HOST:PORT: connection refused; retrying in 2 s`).
@Suite struct ConnectionFailureTests {
    @Test func aRefusedConnectionIsSaidInWords() async throws {
        let port = try LoopbackPort.free()
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            try? await channel.close()
            Issue.record("nothing should listen on \(port)")
        } catch {
            #expect(ConnectionFailure.reason(error) == "connection refused", "\(error)")
        }
    }

    @Test func waitsAreInSeconds() {
        #expect(ConnectionFailure.seconds(Duration.milliseconds(500)) == "0.5 s")
        #expect(ConnectionFailure.seconds(Duration.seconds(30)) == "30 s")
        #expect(ConnectionFailure.seconds(TimeAmount.seconds(10)) == "10 s")
    }
}
