/// One entry of the journal: what kind of input it holds and its bytes. The host decides what goes into a payload;
/// the journal only frames, checksums, orders and keeps it.
public struct JournalRecord: Sendable, Hashable {
    public var kind: UInt8
    public var payload: [UInt8]

    public init(kind: UInt8, payload: [UInt8]) {
        self.kind = kind
        self.payload = payload
    }
}

/// The on-disk frame: `length` (UInt32 LE, of kind + payload), `crc` (UInt32 LE, CRC-32C of kind + payload), `kind`,
/// `payload`. A length of 0 is never written, so a tail of zeros (a file extended but not written before a crash)
/// reads as a torn tail, not as records.
enum JournalFrame {
    static let headerSize = 8
    /// Largest frame accepted when reading: a longer length field is damage, not a record.
    static let maximumBody = 1 << 30

    static func append(_ r: JournalRecord, to out: inout [UInt8]) {
        appendHeader(r, to: &out)
        out.append(contentsOf: r.payload)
    }

    /// The frame's bytes before the payload: length, checksum and kind (`headerSize + 1` bytes).
    static func appendHeader(_ r: JournalRecord, to out: inout [UInt8]) {
        let length = UInt32(1 + r.payload.count)
        var crc = withUnsafeBytes(of: r.kind) { CRC32C.checksum($0) }
        crc = r.payload.withUnsafeBytes { CRC32C.checksum($0, seed: crc) }
        withUnsafeBytes(of: length.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: crc.littleEndian) { out.append(contentsOf: $0) }
        out.append(r.kind)
    }

    static func u32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}
