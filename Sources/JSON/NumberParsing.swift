#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Number reading shared by every decoder: exact (correctly rounded) and allocation-free.
public enum NumberParsing {
    /// Parses a decimal number from ASCII bytes; nil unless the whole buffer is a number.
    @inlinable
    public static func double(_ bytes: UnsafeRawBufferPointer) -> Double? {
        let n = bytes.count
        guard n > 0, n < 64 else { return n >= 64 ? slowDouble(bytes) : nil }
        // Fast path: up to 15 significant digits and a short fraction are exact in Double arithmetic.
        var i = 0
        var negative = false
        if bytes[0] == 45 { negative = true; i = 1 } else if bytes[0] == 43 { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var sawDigit = false
        while i < n, bytes[i] >= 48, bytes[i] <= 57 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48); digits += 1; i += 1; sawDigit = true
        }
        if i < n, bytes[i] == 46 {
            i += 1
            while i < n, bytes[i] >= 48, bytes[i] <= 57 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] - 48); digits += 1; fraction += 1; i += 1; sawDigit = true
            }
        }
        guard sawDigit else { return nil }
        if i == n, digits <= 15, fraction <= 22 {
            let v = Double(mantissa) / powersOfTen[fraction]
            return negative ? -v : v
        }
        return slowDouble(bytes)
    }

    @usableFromInline static let powersOfTen: [Double] = (0...22).map { e in
        var v = 1.0
        for _ in 0..<e { v *= 10 }
        return v
    }

    @usableFromInline
    static func slowDouble(_ bytes: UnsafeRawBufferPointer) -> Double? {
        // strtod alone would also take hex, "nan", "inf" and leading spaces: check the decimal grammar first
        // (sign, digits, optional fraction, optional exponent).
        let n = bytes.count
        guard n > 0, n < 400 else { return nil }
        var i = 0
        if bytes[0] == 45 || bytes[0] == 43 { i = 1 }
        var digits = 0
        while i < n, bytes[i] >= 48, bytes[i] <= 57 { i += 1; digits += 1 }
        if i < n, bytes[i] == 46 {
            i += 1
            while i < n, bytes[i] >= 48, bytes[i] <= 57 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if i < n, bytes[i] == 101 || bytes[i] == 69 {
            i += 1
            if i < n, bytes[i] == 45 || bytes[i] == 43 { i += 1 }
            var exponentDigits = 0
            while i < n, bytes[i] >= 48, bytes[i] <= 57 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard i == n else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf -> Double? in
            for k in 0..<n { buf[k] = CChar(bitPattern: bytes[k]) }
            buf[n] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(buf.baseAddress!, &end)
            // Overflow gives ±infinity (the grammar was valid): range checks downstream name it "not a number".
            guard let end, end - buf.baseAddress! == n else { return nil }
            return v
        }
    }

    /// Parses an optionally signed decimal integer; nil unless the whole buffer is one.
    @inlinable
    public static func int(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        var negative = false
        guard !bytes.isEmpty else { return nil }
        if bytes[0] == 45 { negative = true; i = 1 } else if bytes[0] == 43 { i = 1 }
        guard i < bytes.count, bytes.count - i <= 18 else { return nil }
        var v = 0
        while i < bytes.count {
            let c = bytes[i]
            guard c >= 48, c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
            i += 1
        }
        return negative ? -v : v
    }
}
