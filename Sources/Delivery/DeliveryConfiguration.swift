import Sinks

/// How the outbox is delivered and bounded; `geotrigger serve` sets it from its flags. Defaults are the documented
/// ones.
public struct DeliveryConfiguration: Sendable {
    /// Back-pressure: at this many undelivered entries ingest is refused (503) until sinks catch up. 80 % warns.
    public var maximumEntries: Int
    /// Back-pressure: when the oldest undelivered entry is this old ingest is refused. 80 % warns.
    public var maximumAge: Duration
    public var retry: RetryPolicy
    /// Entries a sink holds in memory at once (its read window). Large, so that a backlog fills every lane's batches:
    /// with 4,096 a lane got ~41 entries per read at 100 devices and drained 100,000 notifications to a batched
    /// webhook at ~10,000/s; with 65,536, at 87,000–110,000/s (BENCHMARKS §5.2). A lane holds its entries' small
    /// structs; their text is shared with the outbox, not copied.
    public var window: Int
    public var webhook: WebhookOptions
    public var ndjson: NDJSONOptions

    public init(maximumEntries: Int = 1_000_000, maximumAge: Duration = .seconds(7 * 24 * 3600), retry: RetryPolicy = .init(),
                window: Int = 65_536, webhook: WebhookOptions = .init(), ndjson: NDJSONOptions = .init()) {
        self.maximumEntries = maximumEntries
        self.maximumAge = maximumAge
        self.retry = retry
        self.window = window
        self.webhook = webhook
        self.ndjson = ndjson
    }

    public func validate() throws(DeliveryConfigurationError) {
        if maximumEntries <= 0 { throw DeliveryConfigurationError(reason: "the outbox entry bound must be positive") }
        if maximumAge <= .zero { throw DeliveryConfigurationError(reason: "the outbox age bound must be positive") }
        if retry.initial <= .zero || retry.maximum < retry.initial {
            throw DeliveryConfigurationError(reason: "retry delays must be positive, the maximum no less than the initial one")
        }
        if window <= 0 { throw DeliveryConfigurationError(reason: "the delivery window must be positive") }
        if webhook.batch < 1 { throw DeliveryConfigurationError(reason: "the webhook batch size must be at least 1") }
        if webhook.concurrency < 1 { throw DeliveryConfigurationError(reason: "the webhook concurrency must be at least 1") }
        if webhook.timeout <= .zero { throw DeliveryConfigurationError(reason: "the webhook timeout must be positive") }
        if let secret = webhook.secret, secret.isEmpty { throw DeliveryConfigurationError(reason: "the webhook secret is empty") }
        if ndjson.rotateBytes < 0 || ndjson.keep < 1 {
            throw DeliveryConfigurationError(reason: "NDJSON rotation needs a size ≥ 0 (0: never) and at least one kept file")
        }
        if ndjson.linger < .zero || ndjson.linger > .seconds(1) {
            throw DeliveryConfigurationError(reason: "the NDJSON linger must be between 0 and 1 second")
        }
    }
}

/// Exponential backoff with jitter: attempt n waits a random time between half and all of initial·2ⁿ⁻¹, capped at
/// `maximum`; a peer's `Retry-After` replaces it (capped at `maximumRetryAfter`).
public struct RetryPolicy: Sendable {
    public var initial: Duration
    public var maximum: Duration
    public var maximumRetryAfter: Duration

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(60), maximumRetryAfter: Duration = .seconds(600)) {
        self.initial = initial
        self.maximum = maximum
        self.maximumRetryAfter = maximumRetryAfter
    }

    public func delay(attempt: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maximumRetryAfter) }
        let exponent = min(max(attempt - 1, 0), 30)
        let full = min(initial * (1 << exponent), maximum)
        return full * Double.random(in: 0.5...1.0)
    }
}

public struct DeliveryConfigurationError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
