#if canImport(Glibc)
import Glibc
#endif
import Testing
import TriggerEngine
@testable import Beacons

/// btsnoop v1 reading (Linux monitor 2001, H4 1002, H1 1001) and writing.
@Suite struct BTSnoopTests {
    static let monitorOpcodeNames: [UInt16: String] = [
        0: "NEW_INDEX", 1: "DEL_INDEX", 2: "COMMAND", 3: "EVENT", 8: "OPEN_INDEX", 9: "CLOSE_INDEX", 10: "INDEX_INFO",
        12: "SYSTEM_NOTE", 14: "CTRL_OPEN", 15: "CTRL_CLOSE",
    ]

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func captureRecordsMatchTheDecodedSummary() throws {
        let expected = try BeaconData.json("btsnoop/capture-decoded.json")
        let reader = try BTSnoopReader(path: BeaconData.path("btsnoop/capture.btsnoop"))
        #expect(reader.datalink == .linuxMonitor && reader.version == 1)
        var counts: [String: Int] = [:]
        var first: Timestamp?, last: Timestamp?
        while let r = try reader.next() {
            let controller = r.controllerIndex.map { "hci\($0)" } ?? "system"
            let op = r.monitorOpcode.flatMap { Self.monitorOpcodeNames[$0] } ?? "opcode \(r.monitorOpcode ?? 0)"
            counts["\(controller) \(op)", default: 0] += 1
            if first == nil { first = r.timestamp }
            last = r.timestamp
        }
        #expect(reader.recordCount == 319)
        var want: [String: Int] = [:]
        for (k, v) in expected["recordsByControllerAndOpcode"]?.objectValue ?? [] { want[k] = v.doubleValue.map(Int.init) }
        #expect(counts == want)
        #expect(first?.rfc3339 == expected["firstRecordUtc"]?.stringValue)
        #expect(last?.rfc3339 == expected["lastRecordUtc"]?.stringValue)
    }

    @Test(.enabled(if: BeaconData.isAvailable, "needs ../shared/data"))
    func captureHasSixAdvertisingReports() throws {
        let expected = try #require(try BeaconData.json("btsnoop/capture-decoded.json")["leAdvertisingReports"]?.arrayValue)
        #expect(expected.count == 6)
        let reader = try BTSnoopReader(bytes: BeaconData.bytes("btsnoop/capture.btsnoop"))
        var found: [(BTSnoopRecord, HCIAdvertisingReport)] = []
        while let r = try reader.next() {
            guard let event = r.hciEvent else { continue }
            for report in try HCIEventParser.advertisingReports(inEvent: event) { found.append((r, report)) }
        }
        #expect(found.count == 6)
        for (want, (record, report)) in zip(expected, found) {
            #expect(Double(record.number) == want["record"]?.doubleValue)
            #expect(record.controllerIndex.map { "hci\($0)" } == want["controller"]?.stringValue)
            #expect(record.timestamp.rfc3339 == want["timeUtc"]?.stringValue)
            #expect(Double(report.eventType) == want["eventType"]?.doubleValue)
            #expect(Double(report.addressType) == want["addressType"]?.doubleValue)
            #expect(report.address.description == want["address"]?.stringValue)
            let available = want["rssiAvailable"]?.boolValue ?? true
            #expect(report.rssi.map(Double.init) == (available ? want["rssi"]?.doubleValue : nil))
            #expect(hexString(report.data) == want["advertisingData"]?.stringValue)
            #expect("04" + hexString(record.hciEvent ?? []) == want["eventHex"]?.stringValue)
            let frame = try #require(BeaconFrameDecoder().decode(report.data))
            let ib = try #require(want["ibeacon"])
            guard case let .iBeacon(uuid, major, minor)? = frame.identity else { Issue.record("not an iBeacon"); continue }
            #expect(uuid.description == ib["uuid"]?.stringValue)
            #expect(Double(major) == ib["major"]?.doubleValue && Double(minor) == ib["minor"]?.doubleValue)
            #expect(frame.txPower.map(Double.init) == ib["txPower"]?.doubleValue)
        }
    }

    @Test func timestampsUseTheYearZeroEpoch() {
        // 2026-11-22T08:22:22.787633Z as btsnoop stores it (capture record 227).
        #expect(BTSnoopRecord.timestamp(btsnoop: 63_963_591_742_787_633).rfc3339 == "2026-11-22T08:22:22.787633Z")
        #expect(BTSnoopRecord.timestamp(btsnoop: 0x00DC_DDB3_0F2F_8000) == Timestamp(microseconds: 0))
        // Garbage times wrap rather than trap.
        _ = BTSnoopRecord.timestamp(btsnoop: .max)
    }

    @Test(arguments: [BTSnoopDatalink.h4, .h1, .linuxMonitor])
    func writerOutputReadsBack(datalink: BTSnoopDatalink) throws {
        let w = BTSnoopWriter(datalink: datalink)
        let event = Array(HCIEventParserTests.captureEvent.dropFirst())
        let t0 = Timestamp(year: 2026, month: 11, day: 22, hour: 8)
        for k in 0..<3 { try w.appendEvent(event, timestamp: t0 + Timestamp.Duration(microseconds: Int64(k)), controllerIndex: 1) }
        // A non-event record in between must not be taken for an event.
        try w.append(datalink == .h4 ? [0x01, 0x0c, 0x20, 0x00] : [0x0c, 0x20, 0x00], flags: datalink == .linuxMonitor ? 0x1_0002 : 0b10,
                     timestamp: t0)
        let r = try BTSnoopReader(bytes: w.bytes)
        #expect(r.datalink == datalink)
        var events = 0
        while let rec = try r.next() {
            if let e = rec.hciEvent {
                #expect(Array(e) == event)
                #expect(rec.timestamp == t0 + Timestamp.Duration(microseconds: Int64(events)))
                events += 1
            }
            if datalink == .linuxMonitor { #expect(rec.controllerIndex == 1) }
        }
        #expect(events == 3 && r.recordCount == 4)
    }

    @Test func streamsFilesLargerThanTheBuffer() throws {
        let path = "/tmp/geotrigger-beacons-test-\(getpid()).btsnoop"
        defer { unlink(path) }
        let w = try BTSnoopWriter(path: path, datalink: .h4)
        let event = Array(HCIEventParserTests.captureEvent.dropFirst())
        let n = 5000  // ≈ 350 KB, several buffer refills, records straddling the refill boundary
        for k in 0..<n { try w.appendEvent(event, timestamp: Timestamp(microseconds: Int64(k))) }
        try w.close()
        let r = try BTSnoopReader(path: path)
        var count = 0
        while let rec = try r.next() {
            #expect(rec.timestamp.microseconds == Int64(count))
            #expect(rec.hciEvent.map(Array.init) == event)
            #expect(rec.offset == 16 + count * (24 + event.count + 1))
            count += 1
        }
        #expect(count == n)
    }

    @Test func headerErrorsAreSpecific() {
        #expect(throws: BTSnoopError.truncatedHeader(available: 3)) { try BTSnoopReader(bytes: [1, 2, 3]) }
        #expect(throws: BTSnoopError.notBTSnoop) { try BTSnoopReader(bytes: Array("btsnoopX".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA]) }
        #expect(throws: BTSnoopError.unsupportedVersion(2)) { try BTSnoopReader(bytes: BTSnoopReader.magic + [0, 0, 0, 2, 0, 0, 3, 0xEA]) }
        #expect(throws: BTSnoopError.unsupportedDatalink(1003)) { try BTSnoopReader(bytes: BTSnoopReader.magic + [0, 0, 0, 1, 0, 0, 3, 0xEB]) }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(path: "/nonexistent/capture.btsnoop") }
    }

    @Test func truncatedRecordNamesRecordAndOffset() throws {
        let w = BTSnoopWriter(datalink: .h4)
        try w.appendEvent([0x0e, 0x01, 0x00], timestamp: Timestamp(microseconds: 0))
        try w.appendEvent([0x0e, 0x01, 0x00], timestamp: Timestamp(microseconds: 1))
        let full = w.bytes  // 16 + 2 × 28
        for cut in 16..<full.count {
            let r = try BTSnoopReader(bytes: Array(full[0..<cut]))
            var thrown: BTSnoopError?
            do { while try r.next() != nil {} } catch { thrown = error }
            if cut == 16 || cut == 44 { #expect(thrown == nil, "cut \(cut) is a record boundary"); continue }
            let record = cut < 44 ? 1 : 2, offset = cut < 44 ? 16 : 44
            let needed = (cut - offset) < 24 ? 24 : 28
            #expect(thrown == .truncatedRecord(record: record, offset: offset, needed: needed, available: cut - offset), "cut \(cut)")
        }
    }

    @Test func includedLengthIsValidated() throws {
        var b = BTSnoopReader.magic + [0, 0, 0, 1, 0, 0, 3, 0xEA]
        b += [0, 0, 0, 4, 0, 0, 0, 5] + [UInt8](repeating: 0, count: 16) + [1, 2, 3, 4, 5]  // included 5 > original 4
        let r = try BTSnoopReader(bytes: b)
        #expect(throws: BTSnoopError.badRecordLength(record: 1, offset: 16, included: 5, original: 4)) { try r.next() }
        #expect(BTSnoopError.badRecordLength(record: 1, offset: 16, included: 5, original: 4).description.contains("record 1 at byte 16"))
    }
}
