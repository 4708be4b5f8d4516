extension Timestamp {
    /// Parses RFC 3339 / ISO 8601 date-times: `2026-11-20T08:15:02Z`, `…02.123+01:00`, a space instead of `T`,
    /// or no zone at all (taken as UTC, as the bus-trace CSV writes it). Returns nil on anything else.
    public init?(rfc3339 text: some StringProtocol) {
        var copy = String(text)
        let parsed: Timestamp? = copy.withUTF8 { Timestamp.parseRFC3339(UnsafeRawBufferPointer($0)) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Byte-level RFC 3339 reader for the ingest hot path (no allocation).
    public static func parseRFC3339(_ b: UnsafeRawBufferPointer) -> Timestamp? {
        var day = RFC3339Day()
        return parseRFC3339(b, day: &day)
    }

    /// `parseRFC3339(_:)`, remembering the last date in `day`: a timestamp on the same date as the one before
    /// (the first ten bytes equal) has only its time of day read. Lines of a trace mostly share a date, and the
    /// date's digits, checks and day count were about a third of the time spent on timestamps.
    public static func parseRFC3339(_ b: UnsafeRawBufferPointer, day cache: inout RFC3339Day) -> Timestamp? {
        let n = b.count
        var i = 0
        @inline(__always) func digits(_ count: Int) -> Int? {
            guard i + count <= n else { return nil }
            var v = 0
            for k in 0..<count {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += count
            return v
        }
        @inline(__always) func expect(_ c: UInt8) -> Bool {
            guard i < n, b[i] == c else { return false }
            i += 1
            return true
        }
        let dayStart: Int64
        if let start = cache.start(of: b) {
            dayStart = start
            i = 10
        } else {
            guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2) else { return nil }
            guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
            dayStart = Timestamp(year: year, month: month, day: day).microseconds
            cache.remember(b, start: dayStart)
        }
        guard i < n, b[i] == 84 || b[i] == 116 || b[i] == 32 else {
            return i == n ? Timestamp(microseconds: dayStart) : nil
        }
        i += 1
        guard let hour = digits(2), expect(58), let minute = digits(2) else { return nil }
        var second = 0
        if expect(58) {
            guard let s = digits(2) else { return nil }
            second = s
        }
        guard hour < 24, minute < 60, second <= 60 else { return nil }
        var micro = 0
        if i < n, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 100_000
            var any = false
            while i < n, b[i] >= 48, b[i] <= 57 {
                micro += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offset = 0
        if i < n {
            let c = b[i]
            if c == 90 || c == 122 {
                i += 1
            } else if c == 43 || c == 45 {
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(58)
                guard let om = digits(2), oh < 24, om < 60 else { return nil }
                offset = (oh * 60 + om) * 60 * (c == 45 ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        // A leap second (:60) is folded onto the next second, as POSIX time does.
        let t = dayStart + Int64(hour * 3600 + minute * 60 + second) * 1_000_000 + Int64(micro)
        return Timestamp(microseconds: t - Int64(offset) * 1_000_000)
    }

    @inlinable
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// The last date `Timestamp.parseRFC3339(_:day:)` read: its ten bytes (`YYYY-MM-DD`) and the microsecond its day
/// starts at (UTC). Empty until a first date is read.
public struct RFC3339Day: Sendable {
    private var head: UInt64 = 0
    private var tail: UInt16 = 0
    private var dayStart: Int64 = 0
    private var known = false

    public init() {}

    /// The remembered day's start when `b` begins with the same ten bytes and goes on (a date-time, not a date).
    @inline(__always)
    func start(of b: UnsafeRawBufferPointer) -> Int64? {
        guard known, b.count > 10, b.loadUnaligned(as: UInt64.self) == head,
            b.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == tail
        else { return nil }
        return dayStart
    }

    /// Remembers `b`'s first ten bytes, a valid date starting at `start`.
    @inline(__always)
    mutating func remember(_ b: UnsafeRawBufferPointer, start: Int64) {
        guard b.count > 10 else { return }
        head = b.loadUnaligned(as: UInt64.self)
        tail = b.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        dayStart = start
        known = true
    }
}
