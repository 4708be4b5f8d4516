/// Reads what `ByteWriter` wrote. Every read is bounds-checked: a short or inconsistent buffer throws
/// `ByteReader.Truncated` (with the offset), never traps, so a damaged record is reported, not crashed on.
public struct ByteReader: Sendable {
    public struct Truncated: Error, Sendable, CustomStringConvertible {
        public var offset: Int
        public var wanted: Int
        public var description: String { "truncated at byte \(offset) (\(wanted) more bytes expected)" }
        public init(offset: Int, wanted: Int) {
            self.offset = offset
            self.wanted = wanted
        }
    }

    public let bytes: [UInt8]
    public private(set) var offset: Int

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public var isAtEnd: Bool { offset >= bytes.count }
    public var remaining: Int { bytes.count - offset }

    @inline(__always) mutating func take(_ n: Int) throws(Truncated) -> Int {
        guard n >= 0, remaining >= n else { throw Truncated(offset: offset, wanted: n) }
        defer { offset += n }
        return offset
    }

    @inline(__always) public mutating func u8() throws(Truncated) -> UInt8 { bytes[try take(1)] }

    @inline(__always) public mutating func u32() throws(Truncated) -> UInt32 {
        let at = try take(4)
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }.littleEndian
    }

    @inline(__always) public mutating func u64() throws(Truncated) -> UInt64 {
        let at = try take(8)
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) }.littleEndian
    }

    @inline(__always) public mutating func i64() throws(Truncated) -> Int64 { Int64(bitPattern: try u64()) }
    @inline(__always) public mutating func double() throws(Truncated) -> Double { Double(bitPattern: try u64()) }
    @inline(__always) public mutating func timestamp() throws(Truncated) -> Timestamp { Timestamp(microseconds: try i64()) }

    public mutating func optionalDouble() throws(Truncated) -> Double? { try u8() == 0 ? nil : try double() }

    public mutating func string() throws(Truncated) -> String {
        let n = Int(try u32())
        let at = try take(n)
        return String(decoding: bytes[at..<(at + n)], as: UTF8.self)
    }

    public mutating func optionalString() throws(Truncated) -> String? { try u8() == 0 ? nil : try string() }

    public mutating func byteArray() throws(Truncated) -> [UInt8] {
        let n = Int(try u32())
        let at = try take(n)
        return Array(bytes[at..<(at + n)])
    }
}
