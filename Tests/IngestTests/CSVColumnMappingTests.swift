import Foundation
import Ingest
import Testing

/// `CSVColumns(mapping:)`: the `--columns` text, and later the HTTP parameter.
@Suite struct CSVColumnMappingTests {
    @Test(arguments: [
        #"device=Vehicle,timestamp="GPS Time""#,
        "device=Vehicle,timestamp=GPS Time",  // what the shell leaves of the line above
        " device = Vehicle , timestamp = GPS Time ",
        "DEVICE=Vehicle,Time=GPS Time",
    ])
    func fieldsAndColumnsAreRead(text: String) throws {
        let columns = try CSVColumns(mapping: text)
        #expect(columns == CSVColumns(device: "Vehicle", timestamp: "GPS Time"))
    }

    @Test func shortFieldNamesAndQuotedColumnsWithCommasAndQuotes() throws {
        let columns = try CSVColumns(mapping: #"lat=y,lon=x,accuracy="err, m",ele=" h ",heading="the ""course""""#)
        #expect(columns == CSVColumns(latitude: "y", longitude: "x", horizontalAccuracy: "err, m", altitude: " h ",
                                      course: #"the "course""#))
        #expect(try CSVColumns(mapping: columns.description) == columns)
        #expect(columns.description == #"latitude=y,longitude=x,horizontalAccuracy="err, m",altitude=" h ",course="the ""course""""#)
    }

    @Test(arguments: [
        ("", "empty mapping"),
        ("Vehicle", "is not field=column"),
        ("colour=red", "unknown field \"colour\""),
        ("device=a,device=b", "device is mapped twice"),
        ("device=", "no column name for device"),
        (#"device="Veh"#, "unterminated quote"),
        (#"device="Veh"icle"#, "text after the closing quote"),
    ])
    func badMappingsSayWhy(text: String, reason: String) {
        let error = #expect(throws: CSVColumns.MappingError.self) { _ = try CSVColumns(mapping: text) }
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func aMappedColumnIsFoundWhateverItsCaseOrSpacing() throws {
        let layout = CSVLayout(header: ["Row", "BUS NO", "gps_time", "Lat", "Lon"],
                               columns: try CSVColumns(mapping: "device=bus no,timestamp=GPS Time"))
        #expect(layout.missing.isEmpty)
        #expect(layout.column(for: .device) == "BUS NO")
        #expect(layout.column(for: .timestamp) == "gps_time")
        #expect(layout.problem == nil)
    }

    @Test func everyFieldHasRecognisedNamesAndOnlyPositionAndTimeAreRequired() {
        for field in CSVField.allCases { #expect(!field.recognisedNames.isEmpty && field.mappingKeys.first != nil) }
        #expect(CSVField.allCases.filter(\.isRequired) == [.timestamp, .latitude, .longitude])
        // A bare id is the last resort.
        #expect(CSVField.device.recognisedNames.last == "id")
    }

    /// docs/traces.md lists the recognised names; this keeps the table and the code the same.
    @Test func theDocumentedHeaderNamesAreTheRecognisedOnes() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/traces.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for field in CSVField.allCases {
            let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `\(field.rawValue)` |") },
                                   "no row for \(field.rawValue)")
            let names = row.split(separator: "|").last!.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            #expect(names == field.recognisedNames, "\(field.rawValue)")
        }
    }
}
