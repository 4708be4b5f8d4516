import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A restart on the same file restores requests and device state and fires nothing twice.
@Suite struct RestartTests {
    @Test func restartRestoresRequestsAndDeviceStateWithoutRefiring() async throws {
        let server = try TestServer()
        let firstHalf = [fixLine("d", 0, inside: false), fixLine("d", 10, inside: true)].joined(separator: "\n")
        try await server.run { client in
            _ = try await client.execute(uri: "/v1/requests/alex", method: .put, body: ByteBuffer(string: requestJSON()))
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: firstHalf))
        }
        #expect(try await server.sinkLines(atLeast: 1).count == 1)

        try await server.run { client in
            #expect(try await client.execute(uri: "/v1/requests/alex", method: .get).status == .ok)
            let device = try await client.execute(uri: "/v1/devices/d", method: .get)
            #expect(device.text.contains(#""phase":"inside""#))
            // The same fixes again: already processed, so dropped, and nothing fires.
            let again = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: firstHalf))
            #expect(again.text.hasPrefix(#"{"accepted":0,"rejected":2"#))
            // Still inside: a further inside fix is no entry; leaving is an exit with the next deliveryId.
            let more = [fixLine("d", 20, inside: true), fixLine("d", 30, inside: false)].joined(separator: "\n")
            _ = try await client.execute(uri: "/v1/fixes", method: .post, body: ByteBuffer(string: more))
        }
        let lines = try await server.sinkLines(atLeast: 2)
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""deliveryId":"alex/d/1-1""#) && lines[0].contains(#""event":"entry""#))
        #expect(lines[1].contains(#""deliveryId":"alex/d/1-2""#) && lines[1].contains(#""event":"exit""#))
    }
}
