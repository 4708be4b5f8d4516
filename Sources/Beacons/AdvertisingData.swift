/// Advertising data (or scan-response data): a run of AD structures `length | type | data…`, as carried in an LE
/// Advertising Report or an Android scan record (Core spec Vol 3 Part C §11).
///
/// Iterating never reads outside `bytes` and never traps, whatever the bytes say:
/// - a zero length byte ends the data early (the spec's early termination; AltBeacon pads scan records to 62 bytes
///   with zeros), so padding yields no structures;
/// - a length byte that claims more bytes than remain (PDU overflow) yields the bytes that are there, with
///   `isTruncated` set — frame decoders check their own minimum lengths, so a short structure simply fails to decode;
/// - a lone length byte at the very end (no room for the type) ends the iteration.
///
/// `init(scanRecord:)` reads Android's legacy scan-record layout instead: advertising data in the first 31 bytes
/// and the scan response from offset 31, each zero-padded and each parsed on its own (AltBeacon's BleAdvertisement).
public struct AdvertisingData: Sequence, Sendable {
    public let bytes: ArraySlice<UInt8>
    /// Where a second, independently parsed segment starts (the scan response in a scan record), if any.
    let secondSegment: Int?

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.secondSegment = nil
    }
    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Legacy advertising data is at most 31 bytes; a scan record longer than that carries the scan response next.
    public static let legacyLength = 31

    /// An Android-style scan record: advertising data in bytes 0..<31, scan response from 31 on.
    public init(scanRecord bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.secondSegment = bytes.count > Self.legacyLength ? bytes.startIndex + Self.legacyLength : nil
    }
    public init(scanRecord bytes: [UInt8]) { self.init(scanRecord: bytes[...]) }

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
        /// End of the current segment; `pending` is the start of the next one, if any.
        var end: Int
        var pending: Int?

        public mutating func next() -> Structure? {
            while true {
                if let s = nextInSegment() { return s }
                guard let next = pending else { return nil }
                pending = nil
                index = next
                end = bytes.endIndex
            }
        }

        private mutating func nextInSegment() -> Structure? {
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

    public func makeIterator() -> Iterator {
        Iterator(bytes: bytes, index: bytes.startIndex, end: secondSegment ?? bytes.endIndex, pending: secondSegment)
    }

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
