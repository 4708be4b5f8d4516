import JSON
import TriggerEngine

/// NMEA 0183 position sentences: RMC, GGA, GNS and GLL give positions, RMC and ZDA the date; GST (and, failing it, GSA/GGA HDOP) give
/// accuracy; any talker (GP, GN, GL, GA, BD, GB, QZ…). Sentences of one epoch (the same time of day) merge into one
/// fix, emitted when the next epoch starts. The date comes from RMC; epochs seen before the first date wait for it,
/// and a time of day that jumps back by more than 12 hours without a new date rolls the date over.
///
/// Real receiver streams mix NMEA with vendor binary, noise and `#` comments: anything that is not a `$` sentence is
/// skipped and counted, never an error; a `$` sentence whose checksum is wrong, or a position sentence with an
/// unreadable field, is one `IngestError`.
public struct NMEADecoder: StreamingRecordDecoder, Sendable {
    /// Metres of horizontal error per unit of HDOP when no GST sentence gives the error directly.
    public static let metresPerDilution = 5.0

    public let source: String
    public let defaultDevice: String?
    /// Bytes and sentences that carried no position: vendor binary, other sentence types, no-fix sentences.
    public private(set) var ignoredSentences = 0

    private var splitter = LineSplitter()
    private var epoch: Epoch?
    private var waiting: [Epoch] = []
    private var date: (year: Int, month: Int, day: Int)?
    private var lastTimeOfDay: Int64?

    public init(source: String, defaultDevice: String? = nil) {
        self.source = source
        self.defaultDevice = defaultDevice
    }

    /// What the sentences of one epoch said.
    struct Epoch: Sendable {
        var timeOfDay: Int64  // microseconds since midnight
        var line: Int
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var speed: Double?
        var course: Double?
        var gstError: Double?
        var hdop: Double?
        var date: (year: Int, month: Int, day: Int)?
    }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        // The splitter is taken out while it calls back into `self`.
        var lines = splitter
        splitter = LineSplitter()
        lines.feed(chunk) { line in handle(line, onRecord, onError) }
        splitter = lines
    }

    public mutating func finish(onRecord: (LocationFix) -> Void, onError: (IngestError) -> Void) {
        var lines = splitter
        splitter = LineSplitter()
        lines.finish { line in handle(line, onRecord, onError) }
        splitter = lines
        if let e = epoch { close(e, onRecord, onError) }
        epoch = nil
        for e in waiting {
            onError(IngestError(source: source, line: e.line, field: "date",
                                reason: "no RMC sentence ever gave the date for this position", kind: IngestError.Kind.missingDate))
        }
        waiting = []
    }

    private mutating func handle(_ line: LineSplitter.Line, _ onRecord: (LocationFix) -> Void, _ onError: (IngestError) -> Void) {
        let b = line.bytes
        var i = 0
        var sawSentence = false
        while i < b.count {
            guard b[i] == UInt8(ascii: "$") else { i += 1; continue }
            var end = i + 1
            while end < b.count, b[end] != UInt8(ascii: "$"), b[end] != 13, b[end] != 10 { end += 1 }
            sentence(UnsafeRawBufferPointer(rebasing: b[i..<end]), line: line.number, onRecord, onError)
            sawSentence = true
            i = end
        }
        if !sawSentence { ignoredSentences += 1 }
    }

    private mutating func sentence(_ s: UnsafeRawBufferPointer, line: Int, _ onRecord: (LocationFix) -> Void,
                                   _ onError: (IngestError) -> Void) {
        // $ttSSS,… [*hh]
        guard s.count >= 7, s[6] == UInt8(ascii: ","),
            (1...5).allSatisfy({ s[$0] >= UInt8(ascii: "A") && s[$0] <= UInt8(ascii: "Z") || s[$0] >= 48 && s[$0] <= 57 })
        else { ignoredSentences += 1; return }
        var body = UnsafeRawBufferPointer(rebasing: s[1...])
        if let star = body.lastIndex(of: UInt8(ascii: "*")) {
            let hex = body[(star + 1)...].prefix(2)
            var sum: UInt8 = 0
            for c in body[..<star] { sum ^= c }
            let expected = hex.count == 2 ? hexByte(hex[hex.startIndex], hex[hex.startIndex + 1]) : nil
            guard let expected, expected == sum else {
                let name = String(decoding: s[1..<6], as: UTF8.self)
                onError(IngestError(source: source, line: line, field: "$\(name) checksum",
                                    reason: "checksum \(String(decoding: hex, as: UTF8.self)) does not match the sentence (\(String(sum, radix: 16, uppercase: true)))",
                                    kind: IngestError.Kind.badChecksum))
                return
            }
            body = UnsafeRawBufferPointer(rebasing: body[..<star])
        }
        let type = (s[3], s[4], s[5])
        var fields: [UnsafeRawBufferPointer] = []
        // Sized once: grown by appends it was reallocated five times per sentence.
        fields.reserveCapacity(body[6...].count { $0 == UInt8(ascii: ",") } + 1)
        var start = 6  // after "ttSSS," in body coordinates (body starts at s[1])
        for k in 6..<body.count where body[k] == UInt8(ascii: ",") {
            fields.append(UnsafeRawBufferPointer(rebasing: body[start..<k]))
            start = k + 1
        }
        fields.append(UnsafeRawBufferPointer(rebasing: body[start..<body.count]))
        let name = String(decoding: s[1..<6], as: UTF8.self)
        func bad(_ field: Int, _ why: String) {
            onError(IngestError(source: source, line: line, field: "$\(name) field \(field)", reason: why, kind: IngestError.Kind.malformedSentence))
        }
        switch type {
        case (UInt8(ascii: "R"), UInt8(ascii: "M"), UInt8(ascii: "C")):
            // time, status, lat, N/S, lon, E/W, speed kn, course, date …
            guard fields.count >= 9 else { return bad(fields.count, "RMC needs at least 9 fields") }
            guard let tod = Self.timeOfDay(fields[0]) else { return fields[0].isEmpty ? noFix() : bad(1, "unreadable time") }
            guard let d = Self.date(fields[8]) else { return fields[8].isEmpty ? noFix() : bad(9, "unreadable date") }
            begin(tod, line: line, onRecord, onError)
            epoch?.date = d
            adopt(date: d, timeOfDay: tod, onRecord, onError)
            guard fields[1].first == UInt8(ascii: "A") else { return noFix() }
            guard let lat = Self.coordinate(fields[2], fields[3], degreesDigits: 2),
                let lon = Self.coordinate(fields[4], fields[5], degreesDigits: 3)
            else { return bad(3, "unreadable position") }
            epoch?.latitude = lat
            epoch?.longitude = lon
            if let knots = NumberParsing.double(fields[6]) { epoch?.speed = knots * 1852 / 3600 }
            if let course = NumberParsing.double(fields[7]) { epoch?.course = course }
        case (UInt8(ascii: "G"), UInt8(ascii: "G"), UInt8(ascii: "A")):
            // time, lat, N/S, lon, E/W, quality, sats, hdop, alt, M, geoid, M …
            guard fields.count >= 9 else { return bad(fields.count, "GGA needs at least 9 fields") }
            guard let tod = Self.timeOfDay(fields[0]) else { return fields[0].isEmpty ? noFix() : bad(1, "unreadable time") }
            begin(tod, line: line, onRecord, onError)
            guard let quality = NumberParsing.int(fields[5]), quality > 0 else { return noFix() }
            guard takeGGAStylePosition(fields) else { return bad(2, "unreadable position") }
        case (UInt8(ascii: "G"), UInt8(ascii: "L"), UInt8(ascii: "L")):
            // lat, N/S, lon, E/W, time, status [, mode]
            guard fields.count >= 6 else { return noFix() }
            guard let tod = Self.timeOfDay(fields[4]) else { return noFix() }
            begin(tod, line: line, onRecord, onError)
            guard fields[5].first == UInt8(ascii: "A") else { return noFix() }
            if fields.count > 6, fields[6].first == UInt8(ascii: "N") { return noFix() }
            guard let lat = Self.coordinate(fields[0], fields[1], degreesDigits: 2),
                let lon = Self.coordinate(fields[2], fields[3], degreesDigits: 3)
            else { return bad(1, "unreadable position") }
            epoch?.latitude = lat
            epoch?.longitude = lon
        case (UInt8(ascii: "G"), UInt8(ascii: "N"), UInt8(ascii: "S")):
            // time, lat, N/S, lon, E/W, mode per constellation (N = no fix), sats, hdop, alt …
            guard fields.count >= 9, let tod = Self.timeOfDay(fields[0]) else { return noFix() }
            begin(tod, line: line, onRecord, onError)
            guard !fields[5].isEmpty, fields[5].contains(where: { $0 != UInt8(ascii: "N") }) else { return noFix() }
            guard takeGGAStylePosition(fields) else { return bad(2, "unreadable position") }
        case (UInt8(ascii: "Z"), UInt8(ascii: "D"), UInt8(ascii: "A")):
            // time, day, month, year (four digits), local zone: the date, like RMC's.
            guard fields.count >= 4, let tod = Self.timeOfDay(fields[0]), let day = NumberParsing.int(fields[1]),
                let month = NumberParsing.int(fields[2]), let year = NumberParsing.int(fields[3]),
                (1...12).contains(month), year >= 1980, year < 2200, day >= 1, day <= Timestamp.daysInMonth(year: year, month: month)
            else { return noFix() }
            begin(tod, line: line, onRecord, onError)
            epoch?.date = (year, month, day)
            adopt(date: (year, month, day), timeOfDay: tod, onRecord, onError)
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "T")):
            // time, rms, semi-major, semi-minor, orientation, σlat, σlon, σalt
            guard fields.count >= 7, let tod = Self.timeOfDay(fields[0]) else { return noFix() }
            begin(tod, line: line, onRecord, onError)
            if let sLat = NumberParsing.double(fields[5]), let sLon = NumberParsing.double(fields[6]) {
                epoch?.gstError = (sLat * sLat + sLon * sLon).squareRoot()
            }
        case (UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "A")):
            // mode, fix type, 12 satellites, PDOP, HDOP, VDOP: no time, applies to the current epoch.
            if fields.count >= 17, epoch != nil, let h = NumberParsing.double(fields[15]) { epoch?.hdop = h }
        default:
            ignoredSentences += 1
        }
    }

    private mutating func noFix() { ignoredSentences += 1 }

    /// GGA and GNS share their layout from field 1: lat, N/S, lon, E/W, (quality or mode), sats, HDOP, altitude.
    private mutating func takeGGAStylePosition(_ fields: [UnsafeRawBufferPointer]) -> Bool {
        guard let lat = Self.coordinate(fields[1], fields[2], degreesDigits: 2),
            let lon = Self.coordinate(fields[3], fields[4], degreesDigits: 3)
        else { return false }
        epoch?.latitude = lat
        epoch?.longitude = lon
        if let h = NumberParsing.double(fields[7]) { epoch?.hdop = h }
        if let alt = NumberParsing.double(fields[8]) { epoch?.altitude = alt }
        return true
    }

    /// Starts a new epoch when the time of day changes, closing the previous one.
    private mutating func begin(_ tod: Int64, line: Int, _ onRecord: (LocationFix) -> Void, _ onError: (IngestError) -> Void) {
        if let e = epoch, e.timeOfDay == tod { return }
        if let e = epoch { close(e, onRecord, onError) }
        epoch = Epoch(timeOfDay: tod, line: line)
    }

    /// A date arrived: epochs that waited for one get it (the same day, or the day before if they were later in
    /// the day than this sentence: they were just before midnight).
    private mutating func adopt(date d: (year: Int, month: Int, day: Int), timeOfDay tod: Int64,
                                _ onRecord: (LocationFix) -> Void, _ onError: (IngestError) -> Void) {
        date = d
        lastTimeOfDay = tod
        let pending = waiting
        waiting = []
        for var e in pending {
            e.date = e.timeOfDay > tod ? Self.previousDay(d) : d
            emit(e, onRecord, onError)
        }
    }

    private mutating func close(_ e: Epoch, _ onRecord: (LocationFix) -> Void, _ onError: (IngestError) -> Void) {
        guard e.latitude != nil else { return }
        var e = e
        if e.date == nil {
            guard var d = date else {
                waiting.append(e)
                return
            }
            // Past midnight without a new RMC date: the day rolled over.
            if let last = lastTimeOfDay, e.timeOfDay + 43_200_000_000 < last { d = Self.nextDay(d); date = d }
            e.date = d
        }
        lastTimeOfDay = e.timeOfDay
        emit(e, onRecord, onError)
    }

    private func emit(_ e: Epoch, _ onRecord: (LocationFix) -> Void, _ onError: (IngestError) -> Void) {
        guard let lat = e.latitude, let lon = e.longitude, let d = e.date else { return }
        guard let device = defaultDevice else {
            onError(IngestError(source: source, line: e.line, field: nil, reason: "NMEA carries no device id and no default was given",
                                kind: IngestError.Kind.missingDevice))
            return
        }
        let day = Timestamp(year: d.year, month: d.month, day: d.day)
        let accuracy = e.gstError ?? e.hdop.map { $0 * Self.metresPerDilution }
        let fix = LocationFix(device: device, timestamp: Timestamp(microseconds: day.microseconds + e.timeOfDay), latitude: lat,
                              longitude: lon, horizontalAccuracy: accuracy, altitude: e.altitude, speed: e.speed, course: e.course)
        if let reason = fix.invalidity {
            onError(IngestError(source: source, line: e.line, field: "position", reason: reason.description, kind: reason.rawValue))
            return
        }
        onRecord(fix)
    }

    // MARK: Field readers

    /// hhmmss[.sss] → microseconds since midnight.
    static func timeOfDay(_ f: UnsafeRawBufferPointer) -> Int64? {
        guard f.count >= 6, let h = NumberParsing.int(UnsafeRawBufferPointer(rebasing: f[0..<2])),
            let m = NumberParsing.int(UnsafeRawBufferPointer(rebasing: f[2..<4])),
            let s = NumberParsing.double(UnsafeRawBufferPointer(rebasing: f[4...])),
            h < 24, m < 60, s >= 0, s < 61
        else { return nil }
        return Int64(h * 3600 + m * 60) * 1_000_000 + Int64((s * 1_000_000).rounded())
    }

    /// ddmmyy → a date; two-digit years are 1980–2079 (GPS began in 1980).
    static func date(_ f: UnsafeRawBufferPointer) -> (year: Int, month: Int, day: Int)? {
        guard f.count == 6, let v = NumberParsing.int(f) else { return nil }
        let day = v / 10000, month = v / 100 % 100, yy = v % 100
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year: year, month: month) else { return nil }
        return (year, month, day)
    }

    /// dddmm.mmmm + hemisphere → signed degrees.
    static func coordinate(_ value: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer, degreesDigits: Int) -> Double? {
        guard value.count > degreesDigits + 1, hemisphere.count == 1,
            let degrees = NumberParsing.int(UnsafeRawBufferPointer(rebasing: value[0..<degreesDigits])),
            let minutes = NumberParsing.double(UnsafeRawBufferPointer(rebasing: value[degreesDigits...])),
            minutes >= 0, minutes < 60
        else { return nil }
        let v = Double(degrees) + minutes / 60
        switch hemisphere[0] {
        case UInt8(ascii: "N"), UInt8(ascii: "E"): return v
        case UInt8(ascii: "S"), UInt8(ascii: "W"): return -v
        default: return nil
        }
    }

    static func nextDay(_ d: (year: Int, month: Int, day: Int)) -> (year: Int, month: Int, day: Int) {
        Timestamp.civilFromDays(Timestamp.daysFromCivil(year: d.year, month: d.month, day: d.day) + 1)
    }

    static func previousDay(_ d: (year: Int, month: Int, day: Int)) -> (year: Int, month: Int, day: Int) {
        Timestamp.civilFromDays(Timestamp.daysFromCivil(year: d.year, month: d.month, day: d.day) - 1)
    }
}

private func hexByte(_ a: UInt8, _ b: UInt8) -> UInt8? {
    func v(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }
    guard let h = v(a), let l = v(b) else { return nil }
    return h << 4 | l
}
