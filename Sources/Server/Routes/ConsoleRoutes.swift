import Hummingbird

/// The operator console (`Sources/Server/console.html`, compiled into the binary): one page with its script and
/// style inline, nothing from a CDN. It reads everything it shows through the API with the browser's credentials, so
/// it sits behind the same authentication: with a token configured, the browser asks for it (Basic, any user name).
struct ConsoleRoutes: Sendable {
    let page: [UInt8]

    init(tiles: String?, attribution: String?) {
        let template = String(decoding: PackageResources.console_html, as: UTF8.self)
        page = Array(template
            .replacingOccurrences(of: "{{TILES_ATTRIBUTION}}", with: Self.escaped(attribution ?? ""))
            .replacingOccurrences(of: "{{TILES}}", with: Self.escaped(tiles ?? "")).utf8)
    }

    func register(read: RouterGroup<APIContext>) {
        let page = self.page
        read.get("console") { _, _ in
            Response(status: .ok,
                     headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                               .contentSecurityPolicy: "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src * data:; connect-src 'self'"],
                     body: .init(byteBuffer: ByteBuffer(bytes: page)))
        }
    }

    /// Text for an HTML attribute value.
    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
