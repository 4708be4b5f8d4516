/// Why a sink did not take entries.
public enum DeliveryFailure: Error, Sendable, CustomStringConvertible {
    /// Try again after `after` (the peer said when, e.g. `Retry-After`) or after the dispatcher's backoff.
    case retryable(reason: String, after: Duration?)
    /// The peer refused the entries for good: `status` (HTTP status, if any) and its answer go to the dead letters.
    case permanent(reason: String, status: Int?, response: String)
    /// The first `delivered` entries were taken; `failure` is about the next one: `.permanent` makes only that
    /// entry a dead letter (the lane goes on with the rest), `.retryable` retries from it. For sinks that take
    /// entries one by one (a broker acknowledging each message), so one refusal never dead-letters a whole batch.
    indirect case partial(delivered: Int, failure: DeliveryFailure)

    public var description: String {
        switch self {
        case .partial(let delivered, let failure): "after \(delivered) delivered: \(failure)"
        case .retryable(let reason, let after): after.map { "\(reason) (retry after \($0))" } ?? reason
        case .permanent(let reason, let status, _): status.map { "\(reason) (status \($0))" } ?? reason
        }
    }
}
