/// A request's content strings parsed into templates once, at add time.
struct CompiledTemplates: Sendable {
    let title: ContentTemplate
    let subtitle: ContentTemplate
    let body: ContentTemplate
    let threadIdentifier: ContentTemplate?
    let summaryArgument: ContentTemplate?
    /// Compiled for a request without userInfo, so no template names a userInfo key (see `init(_:reusing:)`).
    let namesNoUserInfo: Bool

    init(_ r: NotificationRequest) throws(RequestError) {
        let keys = Set(r.content.userInfo.objectValue?.map(\.key) ?? [])
        namesNoUserInfo = keys.isEmpty
        func parse(_ s: String, _ field: String) throws(RequestError) -> ContentTemplate {
            do throws(TemplateError) {
                return try ContentTemplate(s, userInfoKeys: keys)
            } catch {
                throw RequestError(identifier: r.identifier, path: "content.\(field)", reason: error.reason)
            }
        }
        title = try parse(r.content.title, "title")
        subtitle = try parse(r.content.subtitle, "subtitle")
        body = try parse(r.content.body, "body")
        threadIdentifier = try r.content.threadIdentifier.map { (s) throws(RequestError) in try parse(s, "threadIdentifier") }
        summaryArgument = try r.content.summaryArgument.map { (s) throws(RequestError) in try parse(s, "summaryArgument") }
    }
}
