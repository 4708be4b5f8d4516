import Cluster

extension Problem {
    /// 503 while the JetStream cluster does not store inputs (no quorum, no connection); 422 for a bad input.
    init(_ error: ClusterError) {
        switch error {
        case .unavailable(let reason): self = Problem(.serviceUnavailable, title: "Log unavailable", detail: reason)
        case .invalid(let reason): self = Problem(.unprocessableContent, title: "Invalid input", detail: reason)
        }
    }

    static func mapping<T: Sendable>(_ body: () async throws(ClusterError) -> T) async throws(Problem) -> T {
        do { return try await body() } catch { throw Problem(error) }
    }
}
