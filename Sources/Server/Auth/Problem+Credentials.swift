import Hummingbird

extension Problem {
    /// The realm every challenge names.
    static let realm = "geotrigger"

    /// 401 with a Bearer challenge, and a Basic one where the apps post (they can send only Basic credentials).
    /// - Parameter invalid: credentials were sent and refused (RFC 6750 §3.1 `invalid_token`).
    static func unauthorized(basic: Bool, invalid: Bool) -> Problem {
        var problem = Problem(.unauthorized, title: "Unauthorized",
                              detail: invalid
                                ? "the credentials sent are not valid (unknown, revoked or mistyped)"
                                : "send a credential as a bearer token, or as the password of Basic credentials")
        problem.challenges = [#"Bearer realm="\#(realm)""# + (invalid ? #", error="invalid_token""# : "")]
        if basic { problem.challenges.append(#"Basic realm="\#(realm)", charset="UTF-8""#) }
        return problem
    }

    /// 403 for a valid credential whose scope does not cover the route.
    static func forbidden(_ credential: Credential, needs access: RouteAccess) -> Problem {
        Problem(.forbidden, title: "Forbidden",
                detail: "this route needs a credential of scope \(access.neededScopes); this one's scope is \(credential.scope.rawValue)",
                extensions: [("scope", credential.scope.rawValue), ("needed", access.neededScopes)])
    }

    /// 403 for a device credential naming a device that is not one of its own.
    static func foreignDevice(_ device: String) -> Problem {
        Problem(.forbidden, title: "Forbidden",
                detail: "this device credential may post and read only as its own devices, not as '\(device)'; nothing was accepted",
                extensions: [("device", device), ("scope", "device")])
    }
}
