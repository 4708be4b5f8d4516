import CRC32C

/// CRC-32C (Castagnoli), the checksum of every journal frame and checkpoint: it catches torn writes and flipped
/// bytes. Computed by the `CRC32C` C target (the CPU's crc32 instruction where it has one; see its header for the
/// measurement that put it there).
public enum CRC32C {
    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return seed }
        return ~geotrigger_crc32c_update(~seed, base, bytes.count)
    }

    public static func checksum(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, seed: seed) }
    }

    /// The tables alone, whatever the CPU has (tests compare the two).
    static func portableChecksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return seed }
        return ~geotrigger_crc32c_update_portable(~seed, base, bytes.count)
    }

    /// Whether `checksum` uses the CPU's instruction.
    static var usesHardware: Bool { geotrigger_crc32c_hardware() != 0 }
}
