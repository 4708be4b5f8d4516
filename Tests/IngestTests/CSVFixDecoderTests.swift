import Ingest
import Testing
import TestSupport
import TriggerEngine

@Suite struct CSVFixDecoderTests {
    let decoder = CSVFixDecoder(source: "trace.csv")

    // MARK: The real bus trace (shared data, read in place)

    static let route14 = "traces/route14_outbound.csv"

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func liverpoolRoute14GivesAllFixesOfEightBusesInTimeOrder() throws {
        let out = decode(CSVFixDecoder(source: "route14_outbound.csv"), try SharedData.bytes(Self.route14))
        #expect(out.errors.isEmpty)
        #expect(out.fixes.count == 1533)
        // vehicle_id, not the row `id`, is the device.
        #expect(Set(out.fixes.map(\.device)) == ["4716", "4720", "4722", "4733", "4803", "4836", "4841", "4842"])
        var newest: [String: Timestamp] = [:]
        for fix in out.fixes {
            if let previous = newest[fix.device] { #expect(fix.timestamp > previous, "\(fix.device) went back in time") }
            newest[fix.device] = fix.timestamp
        }
        let first = try #require(out.fixes.first)
        #expect(first == LocationFix(device: "4716", timestamp: ts("2026-01-26T15:57:02Z")!, latitude: 53.44451,
                                     longitude: -2.925173))  // empty bearing: no course
        #expect(out.fixes[1].course == 53)
        #expect(out.fixes.filter { $0.course == nil }.count == 399)
        #expect(out.fixes.map(\.timestamp).min() == ts("2026-01-26T15:55:12Z"))
        #expect(out.fixes.map(\.timestamp).max() == ts("2026-01-26T18:19:36Z"))
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"), arguments: chunkings)
    func liverpoolRoute14IsIndifferentToChunking(chunkSize: Int?) throws {
        let bytes = try SharedData.bytes(Self.route14)
        #expect(decode(decoder, bytes, chunkSize: chunkSize) == decode(decoder, bytes))
    }

    /// The route 14 file with its header rewritten: the issue's export names the vehicle `Vehicle` and the time
    /// `GPS Time`, beside a row `id`.
    static func route14(header: String) throws -> [UInt8] {
        let bytes = try SharedData.bytes(route14)
        let newline = try #require(bytes.firstIndex(of: 10))
        return Array(header.utf8) + bytes[newline...]
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func route14WithVehicleAndGPSTimeHeadersGivesTheEightBuses() throws {
        let original = decode(CSVFixDecoder(source: "route14_outbound.csv"), try SharedData.bytes(Self.route14))
        let renamed = try Self.route14(header: #""id","Vehicle","trip_id","GPS Time","latitude","longitude","bearing","origin","destination","route_name","direction","operator""#)
        var d = CSVFixDecoder(source: "bus.csv")
        var out = Decoded()
        renamed.withUnsafeBytes { d.decode($0, onRecord: { out.fixes.append($0) }, onError: { out.errors.append($0) }) }
        d.finish(onRecord: { out.fixes.append($0) }, onError: { out.errors.append($0) })
        #expect(out.errors.isEmpty && d.warnings.isEmpty, "\(out.errors) \(d.warnings)")
        #expect(Set(out.fixes.map(\.device)).count == 8)
        #expect(out.fixes == original.fixes)
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func route14WithOddHeadersReadsThroughAColumnMapping() throws {
        let original = decode(CSVFixDecoder(source: "route14_outbound.csv"), try SharedData.bytes(Self.route14))
        let renamed = try Self.route14(header: #""id","Bus No","trip_id","When, UTC","latitude","longitude","bearing","origin","destination","route_name","direction","operator""#)
        let columns = try CSVColumns(mapping: #"device=Bus No,timestamp="When, UTC""#)
        #expect(decode(CSVFixDecoder(source: "bus.csv", columns: columns), renamed) == original)
        // Without the mapping: one error for the header, nothing else.
        let unmapped = decode(CSVFixDecoder(source: "bus.csv"), renamed)
        #expect(unmapped.kinds == ["missing-column"] && unmapped.fixes.isEmpty)
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data"))
    func route14WithOnlyTheRowIDLeftAsDeviceWarns() throws {
        let renamed = try Self.route14(header: #""id","Fahrzeug","trip_id","timestamp","latitude","longitude","bearing","origin","destination","route_name","direction","operator""#)
        var d = CSVFixDecoder(source: "bus.csv")
        var fixes: [LocationFix] = []
        renamed.withUnsafeBytes { d.decode($0, onRecord: { fixes.append($0) }, onError: { _ in }) }
        d.finish(onRecord: { fixes.append($0) }, onError: { _ in })
        #expect(Set(fixes.map(\.device)).count == 1533)  // what the issue saw
        #expect(d.warnings.map(\.kind) == [IngestWarning.Kind.devicePerRow])
    }

    // MARK: Header

    @Test func columnsAreFoundByCommonSpellingsCaseInsensitively() throws {
        let out = decode(decoder, """
            ID,Tid,Vehicle_ID,Lat,LNG,DateTime,HAcc,Ele,Velocity,Heading
            1,XX,bus-9,52.5,13.4,2026-11-20T08:15:02Z,5,40,3.5,90
            """)
        #expect(out.errors.isEmpty)
        let fix = try #require(out.fixes.first)
        #expect(fix == LocationFix(device: "bus-9", timestamp: ts("2026-11-20T08:15:02Z")!, latitude: 52.5,
                                   longitude: 13.4, horizontalAccuracy: 5, altitude: 40, speed: 3.5, course: 90))
    }

    @Test func explicitColumnsOverrideTheSpellings() {
        let d = CSVFixDecoder(source: "x.csv", columns: CSVColumns(device: "who", timestamp: "when", latitude: "y",
                                                                    longitude: "x"))
        let out = decode(d, "who,when,y,x,latitude\nann,1700000000,10,20,99\n")
        #expect(out.errors.isEmpty)
        #expect(out.fixes.map { [$0.latitude, $0.longitude] } == [[10, 20]])
        #expect(out.fixes.map(\.device) == ["ann"])
    }

    @Test func anExplicitColumnAbsentFromTheHeaderIsReportedOnceOnTheHeader() throws {
        var d = CSVFixDecoder(source: "x.csv", columns: CSVColumns(latitude: "y"))
        let out = decode(d, "time,lat,lon\n1,2,3\n4,5,6\n")
        #expect(out.kinds == ["missing-column"])
        #expect(out.errors.map(\.line) == [1])
        #expect(out.errors[0].reason.contains("latitude (column \"y\")"))
        #expect(out.errors[0].reason.contains(#"it has "time", "lat", "lon""#))
        // The rows are counted once, as a warning, not reported one by one.
        Array("time,lat,lon\n1,2,3\n4,5,6\n".utf8).withUnsafeBytes { d.decode($0, onRecord: { _ in }, onError: { _ in }) }
        d.finish(onRecord: { _ in }, onError: { _ in })
        #expect(d.warnings.map(\.kind) == [IngestWarning.Kind.rowsNotRead])
        #expect(d.warnings.first?.message.hasPrefix("2 rows not read") == true)
    }

    @Test func aHeaderWithoutTimeIsOneMissingColumnNamingTheRecognisedNames() throws {
        let out = decode(decoder, "Vehicle,GPS Zeit,lat,lon\na,1,2,3\nb,1,2,3\nc,1,2,3\n")
        #expect(out.kinds == ["missing-column"])
        let reason = try #require(out.errors.first?.reason)
        #expect(reason.contains("no column for timestamp"))
        #expect(reason.contains("timestamp is recognised as timestamp, time, datetime, gps_time"))
        #expect(out.fixes.isEmpty)
    }

    @Test func aHeaderWithoutLatitudeIsAMissingColumn() {
        let out = decode(decoder, "time,lon\n1,2\n")
        #expect(out.kinds == ["missing-column"])
    }

    // MARK: The device column

    @Test(arguments: ["Vehicle", "vehicle", "VEHICLE_ID", "Vehicle ID", "vehicle-id", "Tracker", "Unit", "IMEI", "Name"])
    func aDeviceLikeColumnWinsOverARowID(name: String) throws {
        let out = decode(decoder, "id,\(name),time,lat,lon\n1,bus-9,1,2,3\n2,bus-9,2,2,3\n")
        #expect(out.errors.isEmpty)
        #expect(out.fixes.map(\.device) == ["bus-9", "bus-9"])
    }

    @Test func gpsTimeAndSpacedOrCapitalisedNamesAreRecognised() throws {
        let out = decode(decoder, "Row ID,Vehicle,GPS Time,Latitude,Longitude,Heading\n7,bus-9,2026-01-26 15:57:02,53.4,-2.9,90\n")
        #expect(out.errors.isEmpty)
        #expect(out.fixes == [LocationFix(device: "bus-9", timestamp: ts("2026-01-26T15:57:02Z")!, latitude: 53.4,
                                          longitude: -2.9, course: 90)])
    }

    static func rows(_ count: Int, device: (Int) -> String) -> String {
        "id,time,lat,lon\n" + (0..<count).map { "\(device($0)),\(1_700_000_000 + $0),53.4,-2.9\n" }.joined()
    }

    @Test func aRowIDThatGivesEveryRowItsOwnDeviceIsOneWarning() throws {
        var d = decoder
        let text = Self.rows(1500) { "\(23_811_684 + $0)" }
        Array(text.utf8).withUnsafeBytes { d.decode($0, onRecord: { _ in }, onError: { _ in }) }
        d.finish(onRecord: { _ in }, onError: { _ in })
        #expect(d.warnings.map(\.kind) == [IngestWarning.Kind.devicePerRow])
        #expect(d.warnings.first?.message.contains(#"column "id" gives nearly every row its own device (1000 devices in the first 1000 rows)"#) == true)
    }

    @Test(arguments: [
        (40, 2, false),  // two vehicles: a real device column
        (40, 40, true),  // forty rows, forty devices
        (10, 10, false),  // too few rows to tell
        (40, 30, false),  // 75 %: many devices, but repeats
    ])
    func theDevicePerRowWarningNeedsNearlyEveryRowDistinct(rows: Int, devices: Int, warns: Bool) {
        var d = decoder
        Array(Self.rows(rows) { "d\($0 % devices)" }.utf8).withUnsafeBytes { d.decode($0, onRecord: { _ in }, onError: { _ in }) }
        d.finish(onRecord: { _ in }, onError: { _ in })
        #expect(d.warnings.map(\.kind) == (warns ? [IngestWarning.Kind.devicePerRow] : []))
    }

    @Test func theDefaultDeviceNeverWarns() {
        var d = CSVFixDecoder(source: "van3.csv", defaultDevice: "van3")
        Array("time,lat,lon\n".utf8 + (0..<50).flatMap { "\($0),1,1\n".utf8 }).withUnsafeBytes {
            d.decode($0, onRecord: { _ in }, onError: { _ in })
        }
        d.finish(onRecord: { _ in }, onError: { _ in })
        #expect(d.warnings.isEmpty)
    }

    @Test func withoutADeviceColumnTheDefaultDeviceIsUsed() {
        let out = decode(CSVFixDecoder(source: "van3.csv", defaultDevice: "van3"), "time,lat,lon\n1,2,3\n")
        #expect(out.fixes.map(\.device) == ["van3"])
        let none = decode(decoder, "time,lat,lon\n1,2,3\n")
        #expect(none.kinds == ["missing-device"])
    }

    @Test func semicolonAndTabSeparatedFilesWork() {
        #expect(decode(decoder, "device;time;lat;lon\na;1;2.5;3\n").fixes.map(\.latitude) == [2.5])
        #expect(decode(decoder, "device\ttime\tlat\tlon\na\t1\t2.5\t3\n").fixes.map(\.latitude) == [2.5])
    }

    /// As a spreadsheet saves CSV where the comma is the decimal separator (de, fr, …): `;` between cells.
    @Test(arguments: chunkings)
    func semicolonFilesTakeDecimalCommas(chunkSize: Int?) throws {
        let out = decode(decoder, """
            device;time;lat;lon;accuracy
            lkw-7;2026-11-20 09:15:02;48,8566;2,3522;12,5
            lkw-7;2026-11-20 09:15:07;48.8567;-2,5;

            """, chunkSize: chunkSize)
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(out.fixes.map(\.latitude) == [48.8566, 48.8567])
        #expect(out.fixes.map(\.longitude) == [2.3522, -2.5])
        #expect(out.fixes.map(\.horizontalAccuracy) == [12.5, nil])
    }

    @Test func decimalCommasAreOnlyForSemicolonFilesAndOnlyOne() {
        // In a comma-separated file a quoted "48,85" is a cell that is not a number: a comma there separates cells.
        #expect(decode(decoder, "device,time,lat,lon\na,1,\"2,5\",3\n").kinds == ["invalid-number"])
        #expect(decode(decoder, "device\ttime\tlat\tlon\na\t1\t2,5\t3\n").kinds == ["invalid-number"])
        // Two commas, or a comma and a point, are not a decimal comma.
        #expect(decode(decoder, "device;time;lat;lon\na;1;2,5,1;3\n").kinds == ["invalid-number"])
        #expect(decode(decoder, "device;time;lat;lon\na;1;1.002,5;3\n").kinds == ["invalid-number"])
    }

    // MARK: Cells and quoting

    @Test func rfc4180QuotingWithDelimitersQuotesAndNewlinesInFields() {
        let out = decode(decoder, """
            "device","note","time","lat","lon"
            "bus ""7"", north","a, b",1,1,1
            plain,"two
            lines",2,2,2
            after,x,3,3,3
            """)
        #expect(out.errors.isEmpty)
        #expect(out.fixes.map(\.device) == ["bus \"7\", north", "plain", "after"])
        // The record with an embedded newline starts on line 3; the next one is on line 5.
        let bad = decode(decoder, "device,note,time,lat,lon\nplain,\"two\nlines\",2,2,2\nafter,x,3,99,3\n")
        #expect(bad.errors.map(\.line) == [4])
    }

    @Test func timestampsInEveryAcceptedForm() {
        let out = decode(decoder, """
            device,time,lat,lon
            a,2026-01-26T15:57:02Z,1,1
            a,2026-01-26 15:57:02,1,1
            a,2026-01-26T16:57:02+01:00,1,1
            a,1769443022,1,1
            a,1769443022000,1,1
            """)
        #expect(out.errors.isEmpty)
        #expect(Set(out.fixes.map(\.timestamp)) == [ts("2026-01-26T15:57:02Z")!])
    }

    @Test func emptyOptionalCellsAreAbsentAndPaddedCellsAreTrimmed() throws {
        let out = decode(decoder, "device,time,lat,lon,acc,alt,speed,course\n a , 1 , 52.5 ,13,,,,\n")
        let fix = try #require(out.fixes.first)
        #expect(fix.device == "a" && fix.latitude == 52.5)
        #expect(fix.horizontalAccuracy == nil && fix.altitude == nil && fix.speed == nil && fix.course == nil)
    }

    @Test(arguments: [
        ("a,1,\"52.5\"x,13", "malformed-csv", nil as String?),
        ("a,1,north,13", "invalid-number", "lat"),
        ("a,1,0x10,13", "invalid-number", "lat"),
        ("a,1,,13", "missing-field", "lat"),
        ("a,1,91,13", "latitude-out-of-range", "lat"),
        ("a,1,1,181", "longitude-out-of-range", "lon"),
        ("a,1,1,1,-2", "invalid-accuracy", "accuracy"),
        ("a,,1,1", "missing-field", "time"),
        ("a,26/01/2026,1,1", "invalid-timestamp", "time"),
        ("a,1,nan,1", "invalid-number", "lat"),
    ])
    func everyBadRowIsOneErrorWithKindAndHeaderField(row: String, kind: String, field: String?) throws {
        let out = decode(decoder, "device,time,lat,lon,accuracy\nok,1,0,0\n" + row + "\nok,2,0,0\n")
        #expect(out.fixes.count == 2)
        let e = try #require(out.errors.first)
        #expect(out.errors.count == 1)
        #expect(e.kind == kind)
        #expect(e.field == field)
        #expect(e.line == 3)
    }

    @Test func anUnterminatedQuoteRunsToTheEndOfInputAsOneError() throws {
        // RFC 4180: a quoted field may hold newlines, so everything after the stray quote belongs to it.
        let out = decode(decoder, "device,time,lat,lon\nok,1,0,0\na,1,\"52.5,13\nok,2,0,0\n")
        #expect(out.fixes.count == 1)
        let e = try #require(out.errors.first)
        #expect(out.kinds == ["malformed-csv"] && e.line == 3)
        #expect(e.reason.contains("unterminated quoted field at byte 4"))
    }

    @Test(arguments: chunkings)
    func chunkBoundariesDoNotChangeTheOutput(chunkSize: Int?) {
        let text = "\u{FEFF}device,time,lat,lon\r\n\"a\"\"b\",1,1,1\r\nx,\"2\nno\",1,1\r\n\r\nc,3,95,1\r\nd,4,2,2"
        let whole = decode(decoder, text)
        #expect(whole.fixes.map(\.device) == ["a\"b", "d"])
        #expect(whole.kinds == ["invalid-timestamp", "latitude-out-of-range"])
        #expect(decode(decoder, text, chunkSize: chunkSize) == whole)
    }

    @Test func hostileBytesNeverCrash() {
        for seed in 1...30 as ClosedRange<UInt64> {
            let bytes = Array("device,time,lat,lon\n".utf8) + hostileBytes(count: 3000, seed: seed)
            #expect(decode(decoder, bytes, chunkSize: 11) == decode(decoder, bytes), "seed \(seed)")
        }
    }
}
