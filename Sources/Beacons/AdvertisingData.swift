/// Advertising data (or scan-response data): a run of AD structures `length | type | data…`, as carried in an LE
/// Advertising Report or an Android scan record (Core spec Vol 3 Part C §11).
///
/// Iterating never reads outside `bytes` and never traps, whatever the bytes say:
/// - a zero length byte ends the data early (the spec's early termination; AltBeacon pads scan records to 62 bytes
///   with zeros), so padding yields no structures;
/// - a length byte that claims more bytes than remain (PDU overflow) yields the bytes that are there, with
///   `isTruncated` set — frame decoders check their own minimum lengths, so a short structure simply fails to decode;
/// - a lone length byte at the very end (no room for the type) ends the iteration.
public struct AdvertisingData: Sequence, Sendable {
    public let bytes: ArraySlice<UInt8>

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// One AD structure. `data` excludes the length and type bytes and shares storage with the input.
    public struct Structure: Equatable, Sendable {
        public var type: UInt8
        public var data: ArraySlice<UInt8>
        /// The length byte claimed more bytes than the buffer held; `data` is what there was.
        public var isTruncated: Bool

        public init(type: UInt8, data: ArraySlice<UInt8>, isTruncated: Bool = false) {
            self.type = type
            self.data = data
            self.isTruncated = isTruncated
        }
    }

    public struct Iterator: IteratorProtocol, Sendable {
        let bytes: ArraySlice<UInt8>
        var index: Int

        public mutating func next() -> Structure? {
            let end = bytes.endIndex
            guard index < end else { return nil }
            let length = Int(bytes[index])
            let typeIndex = index + 1
            guard length > 0, typeIndex < end else {
                index = end
                return nil
            }
            // `length` counts the type byte and the data; at most 255, so this cannot overflow.
            let claimedEnd = typeIndex + length
            let dataEnd = Swift.min(claimedEnd, end)
            index = dataEnd
            return Structure(type: bytes[typeIndex], data: bytes[(typeIndex + 1)..<dataEnd], isTruncated: claimedEnd > end)
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes, index: bytes.startIndex) }

    /// The first structure of the given AD type.
    public func first(ofType type: UInt8) -> Structure? { first { $0.type == type } }
}

extension AdvertisingData {
    /// AD type codes used here (Bluetooth Assigned Numbers, "Common Data Types").
    public enum ADType {
        public static let flags: UInt8 = 0x01
        public static let completeList16BitServiceUUIDs: UInt8 = 0x03
        public static let completeLocalName: UInt8 = 0x09
        public static let serviceData16BitUUID: UInt8 = 0x16
        public static let manufacturerSpecificData: UInt8 = 0xFF
    }
}
