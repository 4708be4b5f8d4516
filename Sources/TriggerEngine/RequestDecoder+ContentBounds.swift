import JSON

/// A notification's size is bounded when its request is registered: every fix that fires renders the content
/// again into the journal, the outbox and each sink, so a request with a megabyte template turns a few kilobytes of
/// fixes into a hundred megabytes. Checked on the live path only (the API), never on a restart's replay of requests
/// accepted before the bound existed.
extension RequestDecoder {
    /// The content's text fields and `userInfo` (as compact JSON) together: APNs' payload limit.
    public static let maximumContentBytes = 4096
    /// Placeholders in all templates together: each renders a value of at most a device id (256 bytes) or the
    /// request's own fields.
    public static let maximumPlaceholders = 32

    /// Refuses a request whose notifications could be larger than the bounds, naming the request and the field.
    public static func checkNotificationSize(_ r: NotificationRequest) throws(RequestError) {
        let c = r.content
        let texts = [c.title, c.subtitle, c.body, c.sound ?? "", c.categoryIdentifier, c.threadIdentifier ?? "", c.summaryArgument ?? ""]
        let bytes = texts.reduce(0) { $0 + $1.utf8.count } + c.userInfo.jsonText.utf8.count
        guard bytes <= maximumContentBytes else {
            throw RequestError(identifier: r.identifier, path: "content",
                               reason: "\(bytes) bytes of text and userInfo; a notification's content is at most \(maximumContentBytes)")
        }
        let templates = try CompiledTemplates(r)
        let all = [templates.title, templates.subtitle, templates.body] + [templates.threadIdentifier, templates.summaryArgument].compactMap { $0 }
        let placeholders = all.reduce(0) { n, t in
            n + t.segments.reduce(0) { if case .placeholder = $1 { $0 + 1 } else { $0 } }
        }
        guard placeholders <= maximumPlaceholders else {
            throw RequestError(identifier: r.identifier, path: "content",
                               reason: "\(placeholders) placeholders; a notification's templates have at most \(maximumPlaceholders)")
        }
    }
}
