import ArgumentParser
import Delivery
import Foundation

/// `serve`'s delivery flags: webhook, NDJSON rotation, retries and the outbox's bounds.
struct DeliveryOptions: ParsableArguments {
    @Option(help: "Webhook: notifications per POST; 1 posts one JSON object, more post JSON arrays (one device's, in order).")
    var webhookBatch = 1
    @Option(help: "Webhook: file holding the HMAC-SHA256 secret; every POST is then signed in --webhook-signature-header.")
    var webhookSecretFile: String?
    @Option(help: "Webhook: header carrying the signature, as sha256=HEX over the body.")
    var webhookSignatureHeader = "X-GeoTrigger-Signature"
    @Option(help: "Webhook: seconds a request may take, connecting included.") var webhookTimeout = 10.0
    @Option(help: "Webhook: devices delivered at once (requests in flight); each device's notifications stay in order.")
    var webhookConcurrency = 8
    @Option(help: "Seconds before the first retry of a failed delivery; doubles per attempt, with jitter.") var retryInitial = 0.5
    @Option(help: "Longest wait between retries, in seconds (a peer's Retry-After is honoured up to 600 s).") var retryMax = 60.0
    @Option(help: "Outbox bound: undelivered notifications at which ingest is refused with 503 (warns from 80 %).")
    var outboxMaxEntries = 1_000_000
    @Option(help: "Outbox bound: age in seconds of the oldest undelivered notification at which ingest is refused.")
    var outboxMaxAge = 604_800.0
    @Option(help: "NDJSON file sinks: rotate before a file would exceed this many bytes (0: never).") var ndjsonRotateBytes = 0
    @Option(help: "NDJSON file sinks: rotated files kept (PATH.1 newest … PATH.N).") var ndjsonKeep = 5

    func validate() throws {
        do { try configuration(secret: webhookSecretFile == nil ? nil : [0]).validate() } catch { throw ValidationError("\(error)") }
    }

    /// The configuration, reading the secret file.
    func configuration() throws -> DeliveryConfiguration {
        var secret: [UInt8]?
        if let webhookSecretFile {
            let text = try String(contentsOfFile: webhookSecretFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            secret = Array(text.utf8)
        }
        return configuration(secret: secret)
    }

    private func configuration(secret: [UInt8]?) -> DeliveryConfiguration {
        DeliveryConfiguration(
            maximumEntries: outboxMaxEntries, maximumAge: Self.duration(outboxMaxAge),
            retry: RetryPolicy(initial: Self.duration(retryInitial), maximum: Self.duration(retryMax)),
            webhook: WebhookOptions(batch: webhookBatch, secret: secret, signatureHeader: webhookSignatureHeader,
                                    timeout: Self.duration(webhookTimeout), concurrency: webhookConcurrency),
            ndjson: NDJSONOptions(rotateBytes: ndjsonRotateBytes, keep: ndjsonKeep))
    }

    static func duration(_ seconds: Double) -> Duration {
        seconds.isFinite ? .milliseconds(Int64((seconds * 1000).rounded())) : .zero
    }
}
