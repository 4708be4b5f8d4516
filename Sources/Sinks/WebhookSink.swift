import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// POSTs notifications to an HTTP endpoint: one JSON object per request, or JSON arrays of up to `batch` (of one
/// or more devices, each device's in order) when `batch` > 1. Each request carries `Idempotency-Key` (the deliveryId; a batch's first)
/// and, with a secret, `X-GeoTrigger-Signature: sha256=HEX`, the HMAC-SHA256 of the body. Connections are pooled
/// and reused. 2xx acknowledges; network errors, timeouts, 408, 429 and 5xx are retried (honouring `Retry-After`);
/// any other status is permanent and the entries become dead letters with the response.
public struct WebhookSink: NotificationSink {
    public let name: String
    public let url: String
    let options: WebhookOptions
    let client: HTTPClient
    /// Kept in a dead letter: enough to see what the peer objected to.
    static let responseExcerpt = 2048

    /// A process-wide client like AsyncHTTPClient's shared one (its pool reuses connections; it lives as long as
    /// the process and needs no shutdown), except that a connection that cannot be established fails the request
    /// at once: the outbox's backoff (`--retry-initial`) decides when to try again, not the pool retrying inside
    /// the request until `--webhook-timeout`, which made a refused connection look like a 10 s hang per attempt.
    public static let defaultClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public init(url: String, name: String, options: WebhookOptions, client: HTTPClient = WebhookSink.defaultClient) {
        self.name = name
        self.url = url
        self.options = options
        self.client = client
    }

    public func deliver(_ entries: [OutboxEntry]) async throws(DeliveryFailure) {
        guard let first = entries.first else { return }
        let body = Self.body(entries, batch: options.batch > 1)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "geotrigger")
        request.headers.add(name: "Idempotency-Key", value: first.deliveryId)
        if let secret = options.secret {
            request.headers.add(name: options.signatureHeader, value: Self.signature(body, secret: secret))
        }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response: HTTPClientResponse
        var text = ""
        do {
            response = try await client.execute(request, timeout: Self.timeAmount(options.timeout))
            // Read the answer through, so the connection can be reused (and a refusal explained).
            var buffer = ByteBuffer()
            for try await var part in response.body {
                if buffer.readableBytes < Self.responseExcerpt { buffer.writeBuffer(&part) }
            }
            text = String(buffer: buffer)
        } catch {
            throw .retryable(reason: "POST \(url): \(error)", after: nil)
        }
        let status = Int(response.status.code)
        switch status {
        case 200..<300:
            return
        case 408, 429, 500..<600:
            throw .retryable(reason: "POST \(url): status \(status)",
                             after: response.headers.first(name: "Retry-After").flatMap(Self.retryAfter))
        default:
            throw .permanent(reason: "POST \(url): status \(status)", status: status,
                             response: String(text.prefix(Self.responseExcerpt)))
        }
    }

    static func body(_ entries: [OutboxEntry], batch: Bool) -> [UInt8] {
        guard batch else { return Array(entries[0].json.utf8) }
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (k, e) in entries.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: e.json.utf8)
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }

    /// `sha256=` and the lowercase hex HMAC-SHA256 of the body.
    public static func signature(_ body: [UInt8], secret: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: secret))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String) -> Duration? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(v) { return .seconds(max(0, seconds)) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = f.date(from: v) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
    }

    /// `Duration` to NIO's `TimeAmount`, through seconds as a `Double`.
    static func timeAmount(_ d: Duration) -> TimeAmount {
        let c = d.components
        return .nanoseconds(Int64((Double(c.seconds) + Double(c.attoseconds) / 1e18) * 1e9))
    }
}
