import Foundation
import HummingbirdTesting
import NIOCore
import NIOSSL
import TestSupport
import Testing

/// `--tls-certificate` and `--tls-key`: the built server speaks HTTPS only, with a certificate made by openssl here.
@Suite struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and localhost, valid for a day.
    static func makeCertificate(in directory: URL) throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", certificate]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0, "openssl req failed (Tools/setup.sh --tests installs openssl)")
        return (certificate, key)
    }

    @Test func healthzOverTLSTrustingTheCertificateAndPlainHTTPFails() async throws {
        let directory = try TestServer().directory
        let (certificate, key) = try Self.makeCertificate(in: directory)
        // Only TLS is under test: a header timeout and a client timeout no starved run can reach (beside four busy
        // loops the handshake and the request once took longer than the default 10 s, and the server closed it).
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--tls-certificate", certificate, "--tls-key", key, "--http-header-timeout", "600"],
                                      directory: directory)
        try await server.waitUntilListening()
        #expect(server.log.contains("scheme=https"))

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        let client = TestClient(host: "127.0.0.1", port: server.port,
                                configuration: .init(tlsConfiguration: tls, timeout: .seconds(600), serverName: "localhost"))
        client.connect()
        let health = try await client.execute(.init("/healthz", method: .get))
        try? await client.shutdown()
        #expect(health.status == .ok)
        #expect(String(buffer: health.body ?? ByteBuffer()) == #"{"status":"ok"}"#)

        // Plain HTTP to the TLS port gets no HTTP answer.
        let plain = TestClient(host: "127.0.0.1", port: server.port, configuration: .init(timeout: .seconds(3)))
        plain.connect()
        let answered: Bool
        do {
            _ = try await plain.execute(.init("/healthz", method: .get))
            answered = true
        } catch {
            answered = false
        }
        try? await plain.shutdown()
        #expect(!answered)
        await server.stop()
    }

    @Test func aMissingKeyFailsTheStartWithItsPath() async throws {
        let directory = try TestServer().directory
        let (certificate, _) = try Self.makeCertificate(in: directory)
        let missing = directory.appendingPathComponent("nokey.pem").path
        let server = try ServeProcess(arguments: ["--database", directory.appendingPathComponent("g.sqlite").path, "--listen", "127.0.0.1:0",
                                                  "--tls-certificate", certificate, "--tls-key", missing], directory: directory)
        try #require(try await server.waitForExit(seconds: 600), "still running: \(server.log)")
        #expect(server.process.terminationStatus == 2)
        #expect(server.log.contains("cannot read the TLS private key \(missing)"))
    }
}
