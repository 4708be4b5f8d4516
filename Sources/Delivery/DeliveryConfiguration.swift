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
        try webhook.validate()
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

public struct WebhookOptions: Sendable {
    /// 1 posts each notification as one JSON object; more posts JSON arrays of up to this many (of one or more devices, each device's in order).
    public var batch: Int
    /// HMAC-SHA256 key; when set, every request carries `signatureHeader: sha256=HEX` over the body.
    public var secret: [UInt8]?
    public var signatureHeader: String
    /// Whole request, connecting included.
    public var timeout: Duration
    /// Devices delivered at once (requests in flight).
    public var concurrency: Int

    public init(batch: Int = 1, secret: [UInt8]? = nil, signatureHeader: String = "X-GeoTrigger-Signature",
                timeout: Duration = .seconds(10), concurrency: Int = 8) {
        self.batch = batch
        self.secret = secret
        self.signatureHeader = signatureHeader
        self.timeout = timeout
        self.concurrency = concurrency
    }

    func validate() throws(DeliveryConfigurationError) {
        if batch < 1 { throw DeliveryConfigurationError(reason: "the webhook batch size must be at least 1") }
        if concurrency < 1 { throw DeliveryConfigurationError(reason: "the webhook concurrency must be at least 1") }
        if timeout <= .zero { throw DeliveryConfigurationError(reason: "the webhook timeout must be positive") }
        if let secret, secret.isEmpty { throw DeliveryConfigurationError(reason: "the webhook secret is empty") }
    }
}

public struct NDJSONOptions: Sendable {
    /// Rotate a file sink before a write would take it past this size; 0 never rotates.
    public var rotateBytes: Int
    /// Rotated files kept: PATH.1 (newest) … PATH.keep.
    public var keep: Int
    /// A file sink's `ConfiguredSink.linger`: under load, one write and one fsync carry the notifications of
    /// several journal records instead of one each.
    public var linger: Duration

    public init(rotateBytes: Int = 0, keep: Int = 5, linger: Duration = .milliseconds(5)) {
        self.rotateBytes = rotateBytes
        self.keep = keep
        self.linger = linger
    }
}

public struct DeliveryConfigurationError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
