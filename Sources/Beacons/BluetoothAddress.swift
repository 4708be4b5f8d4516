/// A 48-bit Bluetooth device address (BD_ADDR), held as one integer so that hashing and comparing it on the
/// sighting path costs no allocation.
public struct BluetoothAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The address as printed, most significant byte first: `00:AA:01:00:00:00` is `0x00AA_0100_0000`.
    public var value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// From the six bytes as HCI carries them: least significant byte first. nil unless exactly six bytes.
    public init?(littleEndianBytes bytes: ArraySlice<UInt8>) {
        guard bytes.count == 6 else { return nil }
        var v: UInt64 = 0
        for b in bytes.reversed() { v = v << 8 | UInt64(b) }
        self.value = v
    }

    /// From the colon form BlueZ prints (`1C:D6:CD:EF:94:35`), any case; each part one or two hex digits.
    public init?(string: String) {
        var v: UInt64 = 0
        var parts = 0
        for part in string.split(separator: ":", omittingEmptySubsequences: false) {
            // Hex digits only: UInt8(_:radix:) alone would also take a sign ("+1").
            guard (1...2).contains(part.utf8.count), part.utf8.allSatisfy(Self.hexDigit),
                let byte = UInt8(part, radix: 16)
            else { return nil }
            v = v << 8 | UInt64(byte)
            parts += 1
        }
        guard parts == 6 else { return nil }
        self.value = v
    }

    /// The six bytes least significant first, as HCI and btsnoop carry them.
    public var littleEndianBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// Upper-case colon form, as BlueZ prints it and as `BeaconSighting.address` holds it.
    public var description: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(17)
        for k in 0..<6 {
            let b = UInt8(truncatingIfNeeded: value >> (40 - 8 * k))
            if k > 0 { out.append(UInt8(ascii: ":")) }
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func < (a: BluetoothAddress, b: BluetoothAddress) -> Bool { a.value < b.value }

    private static func hexDigit(_ c: UInt8) -> Bool {
        (48...57).contains(c) || (65...70).contains(c) || (97...102).contains(c)
    }
}
