/// The webhook sink's settings (`--webhook-*`); `DeliveryConfiguration.validate` checks them.
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
}
