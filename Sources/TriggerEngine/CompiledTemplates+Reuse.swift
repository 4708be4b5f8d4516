extension CompiledTemplates {
    /// `init(r)`, or `last` itself when `r`'s content strings are `last`'s and `last` was compiled without userInfo
    /// keys (so it names none: a template that does depends on the request's userInfo too). Requests loaded from one
    /// file often share their templates: compiling each again was a tenth of loading them, and each kept a copy.
    init(_ r: NotificationRequest, reusing last: CompiledTemplates?) throws(RequestError) {
        if let last, last.namesNoUserInfo, last.title.source == r.content.title, last.body.source == r.content.body,
            last.subtitle.source == r.content.subtitle, last.threadIdentifier?.source == r.content.threadIdentifier,
            last.summaryArgument?.source == r.content.summaryArgument
        {
            self = last
            return
        }
        try self.init(r)
    }
}
