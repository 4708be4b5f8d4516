import Foundation
import Hummingbird
import HummingbirdTesting
import Inputs
import Server
import TestSupport
import Testing

/// Whether the API (or a TCP input) may run without a token is decided on the address it binds, not on how its
/// name is spelt; a blank token is no token, and the bearer scheme is case-insensitive.
@Suite struct ListenAddressTests {
    @Test func loopbackIsDecidedOnTheResolvedAddress() throws {
        // 2130706433 is 127.0.0.1 written as one number: loopback, whatever its text looks like.
        for host in ["127.0.0.1", "2130706433", "localhost", "::1"] {
            #expect(throws: Never.self, "\(host)") { try ServerConfiguration(host: host, port: 0).validate() }
        }
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration(host: "0.0.0.0", port: 0).validate() }
        let input = InputConfiguration.tcp(host: "0", port: 0, .fixes)   // "0" is 0.0.0.0
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration(port: 0, inputs: [input]).validate() }
    }

    /// A name that starts like a loopback address but resolves to every interface (an /etc/hosts entry, in a
    /// mount namespace of this test's own) is refused without a token, for the API and a TCP input alike.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
                   "binds its own /etc/hosts in a mount namespace: needs root and unshare (skipped otherwise)"))
    func aLoopbackLookingNameThatResolvesElsewhereIsRefused() async throws {
        let directory = try TestServer().directory
        let hosts = directory.appendingPathComponent("hosts").path
        try ((try String(contentsOfFile: "/etc/hosts", encoding: .utf8)) + "\n0.0.0.0 127.evil.example\n")
            .write(toFile: hosts, atomically: true, encoding: .utf8)
        let serve = ServeProcess.executable.path
        for (arguments, says) in [("--listen 127.evil.example:0", "listening on 127.evil.example (0.0.0.0, not loopback) needs a bearer token"),
                                  ("--listen 127.0.0.1:0 --input tcp:127.evil.example:0", "must listen on a loopback address (127.evil.example is 0.0.0.0)")] {
            let process = try ServeProcess(arguments: [], directory: directory, shell: """
                exec unshare --mount sh -c "mount --bind '\(hosts)' /etc/hosts && exec '\(serve)' serve --database '\(directory.path)/g.sqlite' \(arguments)"
                """)
            let exited = try await process.waitForExit(seconds: 600)
            #expect(exited, "\(arguments): still running, listening where it should not")
            if !exited { process.kill9() }
            #expect(process.process.terminationStatus == 2, "\(arguments): \(process.log)")
            #expect(process.log.contains(says), "\(arguments): \(process.log)")
        }
    }

    @Test func aBlankTokenIsRefusedAtStart() async throws {
        for blank in ["   ", "\t\n"] {
            do {
                _ = try await ServeSettings.resolve(flags: ["listen": .string("0.0.0.0:8080")], environment: ["GEOTRIGGER_TOKEN": blank], configFile: nil)
                Issue.record("a blank token was accepted")
            } catch {
                #expect(error.description.contains("empty or white space"), "\(error)")
            }
        }
        #expect(throws: ServerConfigurationError.self) { try ServerConfiguration(host: "0.0.0.0", port: 0, token: "  ").validate() }
        let padded = try await ServeSettings.resolve(flags: [:], environment: ["GEOTRIGGER_TOKEN": " s3cret\n"], configFile: nil)
        #expect(padded.configuration.token == "s3cret")
    }

    @Test func theBearerSchemeIsCaseInsensitive() async throws {
        try await TestServer().run(token: "s3cret") { client in
            for header in ["Bearer s3cret", "bearer s3cret", "BEARER s3cret", "Bearer  s3cret"] {
                let r = try await client.execute(uri: "/v1/requests", method: .get, headers: [.authorization: header])
                #expect(r.status == .ok, "\(header)")
            }
            for header in ["Bearers3cret", "Basic s3cret", "bearer s3cre", "s3cret"] {
                let r = try await client.execute(uri: "/v1/requests", method: .get, headers: [.authorization: header])
                #expect(r.status == .unauthorized, "\(header)")
            }
        }
    }
}
