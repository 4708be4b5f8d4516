import JSON

extension ContentTemplate {
    /// True when `source` is certainly a template `init(_:userInfoKeys:)` accepts, found by scanning its bytes
    /// without building anything; false only says "compile it to know" (an error, or a `{userInfo.KEY}` placeholder,
    /// which needs the keys). The byte decoder checks each request's templates this way: compiling them there as
    /// well as in the engine's add built every template twice.
    static func isPlainlyValid(_ source: String) -> Bool {
        source.utf8.withContiguousStorageIfAvailable { scan($0) } ?? false
    }

    private static func scan(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        var i = 0
        while i < b.count {
            let c = b[i]
            guard c == open || c == close else { i += 1; continue }
            if i + 1 < b.count, b[i + 1] == c { i += 2; continue }  // `{{` or `}}`
            guard c == open else { return false }
            var end = i + 1
            while end < b.count, b[end] != close { end += 1 }
            guard end < b.count, isPlaceholderName(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: b[(i + 1)..<end]))) else { return false }
            i = end + 1
        }
        return true
    }

    /// The placeholders `init(_:userInfoKeys:)` knows without userInfo, matched as bytes.
    private static func isPlaceholderName(_ name: UnsafeRawBufferPointer) -> Bool {
        name.isName("device") || name.isName("region.id") || name.isName("event") || name.isName("fix.time")
            || name.isName("region.name") || name.isName("fix.latitude") || name.isName("fix.longitude")
            || name.isName("beacon.proximity")
    }
}
