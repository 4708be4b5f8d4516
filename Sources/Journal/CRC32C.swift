/// CRC-32C (Castagnoli), the checksum of every journal frame: it catches torn writes and flipped bytes.
///
/// Hand-written: no package in reach offers CRC-32C, and zlib's CRC-32 would need a C module for what is one table.
/// Byte-at-a-time table lookup; the journal checksums each batch once, so this is far from the ingest's bottleneck.
enum CRC32C {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        return c
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        table.withUnsafeBufferPointer { t in
            for b in bytes { crc = t[Int(UInt8(truncatingIfNeeded: crc) ^ b)] ^ (crc >> 8) }
        }
        return ~crc
    }

    static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }
}
