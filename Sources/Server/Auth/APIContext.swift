import Hummingbird

/// The request context of the single-instance API: Hummingbird's basic context plus the caller's credential,
/// which `CredentialMiddleware` sets before any route runs.
public struct APIContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Nil only on routes that need none (`/healthz`).
    public var credential: Credential?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        credential = nil
    }
}
