import Sinks

/// A failed `deliver` call read against its batch: how many entries the sink took before it failed, and what
/// becomes of the others. Nested `.partial` failures are added up, so callers see one plain outcome.
struct FailedDelivery {
    enum Rest {
        /// Retry from the first entry not delivered.
        case retry(reason: String, after: Duration?)
        /// Dead-letter `refused` with the peer's status and answer.
        case refuse(reason: String, status: Int?, response: String)
    }

    /// Entries taken (a prefix of the batch).
    var delivered: Int
    var rest: Rest
    /// What a refusal dead-letters: the rest of the batch for a plain `.permanent`, only the entry after the
    /// delivered ones for a partial one.
    var refused: Range<Int>

    init(_ error: DeliveryFailure, batchCount: Int) {
        var failure = error
        var delivered = 0
        var partial = false
        while case .partial(let n, let inner) = failure {
            delivered += max(0, n)
            failure = inner
            partial = true
        }
        self.delivered = min(delivered, batchCount)
        switch failure {
        case .retryable(let reason, let after): rest = .retry(reason: reason, after: after)
        case .permanent(let reason, let status, let response): rest = .refuse(reason: reason, status: status, response: response)
        case .partial: rest = .retry(reason: "\(error)", after: nil)  // the loop above leaves none
        }
        refused = partial ? self.delivered..<min(self.delivered + 1, batchCount) : self.delivered..<batchCount
    }
}
