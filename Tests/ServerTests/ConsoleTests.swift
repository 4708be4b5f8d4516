import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// The operator console: the page itself over HTTP, and the page at work in headless Chromium against a live serve
/// (`Tools/browser/console_check.py`).
@Suite struct ConsoleTests {
    @Test func thePageIsSelfContainedAndBehindTheAPIsAuthentication() async throws {
        let server = try TestServer()
        var configuration = server.configuration(token: "s3cret-console-token")
        configuration.consoleTiles = "https://tiles.example.org/{z}/{x}/{y}.png?a=1&b=\"2\""
        configuration.consoleTilesAttribution = "© Example <Tiles>"
        try await server.run(configuration: configuration) { client in
            // With a token, a browser is asked for it (Basic: any user name, the token as password).
            let refused = try await client.execute(uri: "/console", method: .get)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers[values: .wwwAuthenticate].contains { $0.hasPrefix("Basic ") })
            let basic = "Basic " + Data("operator:s3cret-console-token".utf8).base64EncodedString()
            let page = try await client.execute(uri: "/console", method: .get, headers: [.authorization: basic])
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = page.text
            // Nothing from elsewhere: no script or style source, no link; the tiles only where configured.
            #expect(!html.contains("<script src") && !html.contains("<link"))
            #expect(html.contains(#"content="https://tiles.example.org/{z}/{x}/{y}.png?a=1&amp;b=&quot;2&quot;""#))
            #expect(html.contains(#"content="© Example &lt;Tiles&gt;""#))
            #expect(!html.contains("{{TILES"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("connect-src 'self'") == true)
        }
        var off = server.configuration()
        off.console = false
        try await server.run(configuration: off) { client async throws in
            #expect(try await client.execute(uri: "/console", method: .get).status == .notFound)
        }
    }

    /// Regions drawn, a device moved after a POST, its notification listed, the explain panel's text, tiles from a
    /// loopback tile server, with 10,000 regions; the script prints the times it measured.
    @Test(.enabled(if: ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains { FileManager.default.isExecutableFile(atPath: $0) },
                   "skipped: needs chromium (Tools/test.sh installs it)"))
    func theConsoleWorksInARealBrowser() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [root.appendingPathComponent("Tools/browser/console_check.py").path, "--bin", BuiltBinary.geotrigger.path, "--regions", "10000"]
        let out = TestFolders.path("console-check")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let handle = try FileHandle(forWritingTo: out)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        await p.exited()
        try handle.close()
        let text = try String(contentsOf: out, encoding: .utf8)
        print(text)
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains("console check: passed"))
        #expect(text.contains(#""regions": 10000"#))
    }
}
