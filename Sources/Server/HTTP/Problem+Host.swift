import Host

extension Problem {
    /// The HTTP problem for a host's refusal: 422 for a request it cannot take, 503 while it cannot store
    /// changes or is shutting down.
    init(_ error: HostError) {
        switch error {
        case .invalidRequest(let e): self = .invalidRequest(e)
        case .unavailable(let reason): self = .unavailable(reason)
        case .shuttingDown: self = .shuttingDown
        }
    }

    /// Runs a host call, turning its refusal into a problem.
    static func mapping<T: Sendable>(_ body: () async throws(HostError) -> T) async throws(Problem) -> T {
        do { return try await body() } catch { throw Problem(error) }
    }
}
