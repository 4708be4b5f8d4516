/// A 128-bit identifier (iBeacon proximity UUID, AltBeacon id1) held as two integers: hashing and comparing it on the
/// sighting path costs no allocation.
public struct UUID128: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    @inlinable public init(high: UInt64, low: UInt64) { self.high = high; self.low = low }

    /// From 16 big-endian bytes.
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var h: UInt64 = 0, l: UInt64 = 0
        for (k, b) in bytes.enumerated() {
            if k < 8 { h = h << 8 | UInt64(b) } else { l = l << 8 | UInt64(b) }
        }
        self.init(high: h, low: l)
    }

    /// From the textual form, with or without hyphens, any case: `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`.
    public init?(string: String) {
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(32)
        for c in string.utf8 {
            if c == UInt8(ascii: "-") { continue }
            guard let v = hexValue(c) else { return nil }
            nibbles.append(v)
        }
        guard nibbles.count == 32 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        for k in 0..<16 { bytes[k] = nibbles[2 * k] << 4 | nibbles[2 * k + 1] }
        self.init(bytes: bytes)
    }

    public var bytes: [UInt8] {
        (0..<16).map { k in UInt8(truncatingIfNeeded: (k < 8 ? high >> (56 - 8 * k) : low >> (56 - 8 * (k - 8)))) }
    }

    /// Lower-case 8-4-4-4-12 form.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the lower-case 8-4-4-4-12 form: the sighting and notification writers' path, which allocates nothing
    /// (building `description` was 15 % of `scan --btsnoop`).
    @inlinable
    public func appendText(to out: inout [UInt8]) {
        appendHex(high >> 32, digits: 8, to: &out)
        out.append(UInt8(ascii: "-"))
        appendHex(high >> 16, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendHex(high, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendHex(low >> 48, digits: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendHex(low, digits: 12, to: &out)
    }
}

/// Appends the low `digits` nibbles of `value` as lower-case hex, most significant first.
@inlinable
func appendHex(_ value: UInt64, digits: Int, to out: inout [UInt8]) {
    var shift = 4 * (digits - 1)
    while shift >= 0 {
        let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 15
        out.append(nibble < 10 ? nibble + 48 : nibble + 87)
        shift -= 4
    }
}

/// Which beacon a sighting saw (SPEC §2). Eddystone-URL and TLM frames carry no identity: see `BeaconTelemetry`.
public enum BeaconIdentity: Hashable, Sendable {
    case iBeacon(uuid: UUID128, major: UInt16, minor: UInt16)
    case altBeacon(id1: UUID128, id2: UInt16, id3: UInt16)
    /// Eddystone-UID: a 10-byte namespace and a 6-byte instance, each kept as hex text of fixed length.
    case eddystoneUID(namespace: EddystoneNamespace, instance: EddystoneInstance)

    public var kindName: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystoneUID: "eddystone-uid"
        }
    }
}

/// The 10-byte Eddystone-UID namespace.
public struct EddystoneNamespace: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt16
    public var low: UInt64
    @inlinable public init(high: UInt16, low: UInt64) { self.high = high; self.low = low }
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 10 else { return nil }
        var v: (UInt16, UInt64) = (0, 0)
        for (k, b) in bytes.enumerated() {
            if k < 2 { v.0 = v.0 << 8 | UInt16(b) } else { v.1 = v.1 << 8 | UInt64(b) }
        }
        self.init(high: v.0, low: v.1)
    }
    public init?(hex: String) {
        guard let b = hexBytes(hex), b.count == 10 else { return nil }
        self.init(bytes: b)
    }
    public var bytes: [UInt8] {
        [UInt8(high >> 8), UInt8(high & 0xFF)] + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }
    /// 20 lower-case hex digits.
    public var description: String {
        var out: [UInt8] = []
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the 20 lower-case hex digits.
    @inlinable
    public func appendText(to out: inout [UInt8]) {
        appendHex(UInt64(high), digits: 4, to: &out)
        appendHex(low, digits: 16, to: &out)
    }
}

/// The 6-byte Eddystone-UID instance.
public struct EddystoneInstance: Hashable, Sendable, CustomStringConvertible {
    public var value: UInt64
    @inlinable public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }
    @inlinable
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 6 else { return nil }
        self.init(value: bytes.reduce(0) { $0 << 8 | UInt64($1) })
    }
    public init?(hex: String) {
        guard let b = hexBytes(hex), b.count == 6 else { return nil }
        self.init(bytes: b)
    }
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * $0)) } }
    /// 12 lower-case hex digits.
    public var description: String {
        var out: [UInt8] = []
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the 12 lower-case hex digits.
    @inlinable
    public func appendText(to out: inout [UInt8]) { appendHex(value, digits: 12, to: &out) }
}

@inlinable
func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: c - 48
    case 65...70: c - 55
    case 97...102: c - 87
    default: nil
    }
}

/// Lower-case hex of bytes.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
    return String(decoding: out, as: UTF8.self)
}

/// Bytes from hex text (an optional `0x` prefix is allowed); nil on odd length or a non-hex digit.
public func hexBytes(_ text: String) -> [UInt8]? {
    var u = Array(text.utf8)
    if u.count >= 2, u[0] == 48, u[1] == 120 || u[1] == 88 { u.removeFirst(2) }
    guard u.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(u.count / 2)
    var k = 0
    while k < u.count {
        guard let h = hexValue(u[k]), let l = hexValue(u[k + 1]) else { return nil }
        out.append(h << 4 | l)
        k += 2
    }
    return out
}
