import JSON

extension JSONWriter {
    /// A timestamp as an RFC 3339 string (UTC, `Z`, the fraction only when there is one).
    public mutating func timestamp(_ t: Timestamp) {
        rawValue { bytes in
            bytes.append(UInt8(ascii: "\""))
            t.appendRFC3339(to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
