@testable import Journal
import Testing

/// The journal's checksum: the standard check value, the CPU's instruction against the tables at every length and
/// alignment, and a checksum continued across pieces equal to the whole one.
@Suite struct CRC32CTests {
    @Test func standardCheckValues() {
        // RFC 3720 §B.4 and the CRC catalogue's check value for CRC-32C.
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(0..<32)) == 0x46DD_794E)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func hardwareAndTablesAgreeAtEveryLengthAndAlignment() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes: [UInt8] = (0..<600).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        bytes.withUnsafeBytes { all in
            for offset in 0..<8 {
                for length in 0...(all.count - offset) where length < 80 || length % 37 == 0 {
                    let piece = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                    #expect(CRC32C.checksum(piece) == CRC32C.portableChecksum(piece), "offset \(offset), length \(length)")
                }
            }
            let whole = CRC32C.checksum(all)
            let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[..<123]))
            #expect(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[123...]), seed: first) == whole)
        }
    }
}
