import Ingest
import Testing
import TriggerEngine

/// One table of field names (`FieldAliases`) for NDJSON keys and CSV headers.
@Suite struct FieldAliasesTests {
    let decoder = NDJSONFixDecoder(source: "fixes.ndjson")

    @Test(arguments: chunkings)
    func ndjsonWithShortNamesIsAccepted(chunkSize: Int?) throws {
        let out = decode(decoder, """
            {"device":"van","lat":48.8566,"lon":2.3522,"time":"2026-11-20T09:15:02Z"}
            {"tid":"jp","latitude":48.8567,"lng":2.3523,"tst":1763630107,"acc":8}
            {"device":"van","lat":48.8568,"lon":2.3524,"time":"2026-11-20T09:15:12Z"}

            """, chunkSize: chunkSize)
        #expect(out.errors.isEmpty, "\(out.errors)")
        #expect(out.fixes.map(\.device) == ["van", "jp", "van"])
        #expect(out.fixes.map(\.latitude) == [48.8566, 48.8567, 48.8568])
        #expect(out.fixes.map(\.longitude) == [2.3522, 2.3523, 2.3524])
        #expect(out.fixes[1].horizontalAccuracy == 8)
        #expect(out.fixes[1].timestamp.microseconds == 1_763_630_107_000_000)
    }

    /// Every name of the table, as an NDJSON key, gives its field: on the byte scanner's path and, with an escape in
    /// the line, on the full parser's.
    @Test func everyTableNameIsAnNDJSONKey() throws {
        let spec: [CSVField: String] = [.device: #""device":"d""#, .timestamp: #""timestamp":1700000000"#,
                                        .latitude: #""latitude":10"#, .longitude: #""longitude":20"#]
        let values: [CSVField: String] = [.device: #""x""#, .timestamp: "1700000001", .latitude: "11", .longitude: "21",
                                          .horizontalAccuracy: "5", .altitude: "100", .speed: "3", .course: "90"]
        for field in CSVField.allCases {
            for name in FieldAliases.names(of: field) where !FieldAliases.isHeaderOnly(name) {
                var members = spec.filter { $0.key != field }.map(\.value)
                members.append("\"\(name)\":\(values[field]!)")
                for line in ["{" + members.joined(separator: ",") + "}", #"{"note":"\u0041","# + members.joined(separator: ",") + "}"] {
                    let out = decode(decoder, line + "\n")
                    let fix = try #require(out.fixes.first, "\(name): \(out.errors)")
                    switch field {
                    case .device: #expect(fix.device == "x", "\(name)")
                    case .timestamp: #expect(fix.timestamp.microseconds == 1_700_000_001_000_000, "\(name)")
                    case .latitude: #expect(fix.latitude == 11, "\(name)")
                    case .longitude: #expect(fix.longitude == 21, "\(name)")
                    case .horizontalAccuracy: #expect(fix.horizontalAccuracy == 5, "\(name)")
                    case .altitude: #expect(fix.altitude == 100, "\(name)")
                    case .speed: #expect(fix.speed == 3, "\(name)")
                    case .course: #expect(fix.course == 90, "\(name)")
                    }
                }
            }
        }
    }

    @Test func anIDOrNameKeyIsNotTheDevice() {
        let out = decode(decoder, #"{"id":7,"name":"Van","timestamp":1,"latitude":1,"longitude":2}"# + "\n")
        #expect(out.kinds == ["missing-device"])
    }

    @Test(arguments: chunkings)
    func twoNamesForOneFieldAreAnErrorNamingBoth(chunkSize: Int?) throws {
        let out = decode(decoder, """
            {"device":"a","time":1,"lat":1,"latitude":2,"lon":3}
            {"device":"a","timestamp":1,"time":2,"lat":1,"lon":3}
            {"device":"a","time":3,"lat":1,"lon":3}

            """, chunkSize: chunkSize)
        #expect(out.kinds == ["ambiguous-field", "ambiguous-field"])
        #expect(out.errors.map(\.reason) == [#""lat" and "latitude" both give the latitude; keep one"#,
                                            #""timestamp" and "time" both give the timestamp; keep one"#])
        #expect(out.errors.map(\.line) == [1, 2])
        #expect(out.fixes.count == 1)
    }

    @Test func errorsNameTheKeyTheRecordUsed() throws {
        let out = decode(decoder, """
            {"device":"a","time":1,"lat":95,"lon":3}
            {"device":"a","time":1,"lat":5}
            {"device":"a","time":"soon","lat":5,"lon":3}

            """)
        #expect(out.errors.map(\.field) == ["lat", "longitude", "time"])
        #expect(out.kinds == ["latitude-out-of-range", "missing-field", "invalid-timestamp"])
    }

    @Test func csvHeadersAndColumnMappingsUseTheSameTable() throws {
        #expect(CSVField.timestamp.recognisedNames == FieldAliases.names(of: .timestamp))
        let csv = CSVFixDecoder(source: "t.csv")
        let out = decode(csv, "tid,tst,lat,lng,acc\njp,1700000000,1,2,8\n")
        #expect(out.errors.isEmpty && out.fixes.first?.device == "jp" && out.fixes.first?.horizontalAccuracy == 8)
        // A mapping key may be any name of the table a JSON key may be.
        let mapping = try CSVColumns(mapping: "vehicle=Bus,lng=X,Time=When")
        #expect(mapping.device == "Bus" && mapping.longitude == "X" && mapping.timestamp == "When")
    }

    @Test func sightingsTakeTheDeviceAndTimestampAliases() throws {
        var d = NDJSONSightingDecoder(source: "s.ndjson")
        var sightings: [BeaconSighting] = [], errors: [IngestError] = []
        let text = #"{"tid":"gate","time":1700000000,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":-60}"# + "\n"
            + #"{"device":"gate","tid":"x","time":1700000000,"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":-60}"# + "\n"
        Array(text.utf8).withUnsafeBytes { d.decode($0, onRecord: { sightings.append($0) }, onError: { errors.append($0) }) }
        d.finish(onRecord: { sightings.append($0) }, onError: { errors.append($0) })
        #expect(sightings.map(\.device) == ["gate"])
        #expect(errors.map(\.kind) == ["ambiguous-field"])
    }
}
