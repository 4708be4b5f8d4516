import JSON

extension RequestDecoder {
    /// SPEC §1 requests (a JSON array of request objects, or one object) read straight from the bytes, without the
    /// `JSONValue` tree: the same requests `decodeRequests` gives for the parsed bytes. Nil for anything else (not
    /// JSON, GeoJSON, an invalid request, a rare form): parse the bytes and read them through `convertGeoJSON` or
    /// `decodeRequests` then, which give the error.
    public func decodeRequests(bytes: UnsafeRawBufferPointer) -> [NotificationRequest]? {
        RequestByteDecoder.decode(bytes)
    }

    /// `decodeRequests(bytes:)` with each request's JSON text (its bytes without the whitespace between tokens, as
    /// the listing and the journal keep it), and whether the document was an array; nil where the tree must read it.
    public func decodeRequestsWithTexts(bytes: UnsafeRawBufferPointer) -> (requests: [NotificationRequest], texts: [String], isArray: Bool)? {
        var texts: [String]? = []
        guard let decoded = RequestByteDecoder.decode(bytes, texts: &texts), let texts else { return nil }
        return (decoded.requests, texts, decoded.isArray)
    }

    /// `decodeRequests(bytes:)` for an array of bytes.
    public func decodeRequests(bytes: [UInt8]) -> [NotificationRequest]? {
        bytes.withUnsafeBytes { RequestByteDecoder.decode($0) }
    }

    /// One request object's JSON text (a checkpoint's or the store's row), as `decodeRequest(JSONParser.parse(text))`
    /// reads it and with its errors (`JSONParser.Error` or `RequestError`), read without the tree where it can be.
    public func decodeRequest(jsonText text: String) throws -> NotificationRequest {
        var text = text
        if let request = text.withUTF8({ RequestByteDecoder.decodeObject(UnsafeRawBufferPointer($0)) }) { return request }
        return try decodeRequest(try JSONParser.parse(text))
    }
}
