/// A point in time: whole microseconds since the Unix epoch, UTC.
///
/// Microseconds cover every input format (NMEA centiseconds, btsnoop microseconds, RFC 3339 fractions) while keeping
/// comparisons and arithmetic integer-exact, so a replay gives the same output on every run.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }
    /// Saturates instead of trapping: NaN is 0, values beyond ±146,000 years clamp (input is validated upstream;
    /// this only guarantees no crash).
    @inlinable public init(seconds: Double) { self.microseconds = Timestamp.saturatingMicroseconds(seconds) }
    @inlinable public init(milliseconds: Int64) {
        self.microseconds = milliseconds.multipliedReportingOverflow(by: 1000).overflow
            ? (milliseconds < 0 ? Timestamp.distantPast.microseconds : Timestamp.distantFuture.microseconds)
            : milliseconds * 1000
    }

    @inlinable
    static func saturatingMicroseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return seconds.isNaN ? 0 : (seconds < 0 ? .min / 2 : .max / 2) }
        let us = (seconds * 1_000_000).rounded()
        return us <= -4.6e18 ? .min / 2 : us >= 4.6e18 ? .max / 2 : Int64(us)
    }

    @inlinable public var seconds: Double { Double(microseconds) / 1_000_000 }

    @inlinable public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    @inlinable public static func + (a: Timestamp, b: Duration) -> Timestamp {
        Timestamp(microseconds: a.microseconds &+ b.microseconds)
    }
    @inlinable public static func - (a: Timestamp, b: Timestamp) -> Duration {
        Duration(microseconds: a.microseconds &- b.microseconds)
    }

    public static let distantPast = Timestamp(microseconds: .min / 2)
    public static let distantFuture = Timestamp(microseconds: .max / 2)

    public var description: String { rfc3339 }

    /// A time span in whole microseconds (trigger settings are given in seconds).
    public struct Duration: Hashable, Comparable, Sendable {
        public var microseconds: Int64
        @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }
        @inlinable public init(seconds: Double) { self.microseconds = Timestamp.saturatingMicroseconds(seconds) }
        @inlinable public var seconds: Double { Double(microseconds) / 1_000_000 }
        @inlinable public static func < (a: Duration, b: Duration) -> Bool { a.microseconds < b.microseconds }
        public static let zero = Duration(microseconds: 0)
    }
}

// MARK: - Civil calendar (proleptic Gregorian), used by the RFC 3339 reader and writer.

extension Timestamp {
    /// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm; exact for all Int32 years).
    @inlinable
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    @inlinable
    public static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, microsecond: Int = 0) {
        let days = Int64(Timestamp.daysFromCivil(year: year, month: month, day: day))
        let secs = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        self.microseconds = secs * 1_000_000 + Int64(microsecond)
    }

    /// RFC 3339 in UTC with `Z`; fractional seconds only when present (milliseconds, or microseconds when needed).
    public var rfc3339: String {
        String(unsafeUninitializedCapacity: Self.rfc3339Capacity) { writeRFC3339(into: $0.baseAddress!) }
    }

    public func appendRFC3339(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.rfc3339Capacity) { text in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[0..<writeRFC3339(into: text.baseAddress!)]))
        }
    }

    /// The most bytes `writeRFC3339(into:)` writes (a 20-character year, then `-MM-DDTHH:MM:SS.ffffffZ`).
    public static var rfc3339Capacity: Int { 48 }

    /// The RFC 3339 text at `out` (room for `rfc3339Capacity` bytes); returns its length. Written through a
    /// pointer so the notification renderer's cursor and the array writer share one formatter.
    public func writeRFC3339(into out: UnsafeMutablePointer<UInt8>) -> Int {
        var us = microseconds % 1_000_000
        var secs = microseconds / 1_000_000
        if us < 0 { us += 1_000_000; secs -= 1 }
        var days = secs / 86_400
        var rem = secs % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, mo, d) = Timestamp.civilFromDays(Int(days))
        var i = 0
        func byte(_ b: UInt8) { out[i] = b; i += 1 }
        func two(_ v: Int) { out[i] = UInt8(48 + v / 10); out[i + 1] = UInt8(48 + v % 10); i += 2 }
        if y < 0 || y > 9999 {
            for b in String(y).utf8 { byte(b) }
        } else {
            two(y / 100); two(y % 100)
        }
        byte(45); two(mo); byte(45); two(d)
        byte(84)
        two(Int(rem / 3600)); byte(58); two(Int(rem % 3600 / 60)); byte(58); two(Int(rem % 60))
        if us != 0 {
            byte(46)
            if us % 1000 == 0 {
                let ms = Int(us / 1000)
                byte(UInt8(48 + ms / 100)); two(ms % 100)
            } else {
                var v = Int(us)
                for k in stride(from: 5, through: 0, by: -1) { out[i + k] = UInt8(48 + v % 10); v /= 10 }
                i += 6
            }
        }
        byte(90)
        return i
    }
}
